//===- Passes.h - Tandem passes ---------------------------------*- C++ -*-===//
//
// Declarations of every Tandem pass (generated from Passes.td) and their
// registration.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PASSES_H
#define TANDEM_PASSES_PASSES_H

#include "dialects/Tandem/IR/TandemDialect.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tandem {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PASSES_H
