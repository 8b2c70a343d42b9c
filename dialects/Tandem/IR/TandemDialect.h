//===- TandemDialect.h - the tandem graph dialect ---------------*- C++ -*-===//
//
// Declares the tandem dialect class.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_TANDEMDIALECT_H
#define TANDEM_DIALECTS_TANDEM_IR_TANDEMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Tandem/IR/TandemDialect.h.inc"

#endif // TANDEM_DIALECTS_TANDEM_IR_TANDEMDIALECT_H
