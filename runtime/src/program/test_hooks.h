//===- test_hooks.h - Internal access for the runtime's tests --*- C++ -*-===//
//
// Not part of the API: tests include this (from runtime/src) to reach an
// instance's internals, e.g. to delay one stream of one slot on the
// emulated device.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_PROGRAM_TEST_HOOKS_H
#define TANDEM_RUNTIME_PROGRAM_TEST_HOOKS_H

#include "tandem/runtime.h"

/// Stream `stream` (0 compute, 1 h2d, 2 d2h) of slot `slot`; NULL when the
/// model has no device, or the numbers are out of range.
tandem_stream_t *tandem_internal_model_stream(tandem_model_t *model, int slot,
                                              int stream);

#endif // TANDEM_RUNTIME_PROGRAM_TEST_HOOKS_H
