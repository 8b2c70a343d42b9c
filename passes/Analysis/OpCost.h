//===- OpCost.h - work and traffic estimates of tandem ops ------*- C++ -*-===//
//
// Device-independent estimates of what one tandem op costs: floating-point
// operations and the bytes it reads and writes. The placement cost model and
// the fusion priority both read them; they turn work into time only against a
// DeviceModel.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_ANALYSIS_OPCOST_H
#define TANDEM_PASSES_ANALYSIS_OPCOST_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace mlir::tandem {

/// The work an op does, independent of the device it runs on.
struct OpCost {
  /// Arithmetic operations (a multiply-add counts as two). Transcendental
  /// functions count as several.
  double flops = 0;
  /// Bytes read from operands and written to results.
  double bytesRead = 0;
  double bytesWritten = 0;
  /// True when the work is dense linear algebra (conv, matmul, gemm) that
  /// runs at a device's matrix peak rather than its vector peak.
  bool isMatrix = false;

  double bytes() const { return bytesRead + bytesWritten; }
};

/// Bytes of a statically shaped tensor (0 for anything else). i1 counts as
/// one byte.
int64_t tensorBytes(Type type);

/// Number of elements of a statically shaped tensor (1 for non-tensors).
int64_t tensorElements(Type type);

/// Estimates the cost of `op`: its flops from its CostOpInterface
/// (dialects/Tandem/IR/TandemInterfaces.td), its bytes from its operand and
/// result types. Ops with the ZeroCost trait (constants, reshapes,
/// terminators) are free. A `tandem.fusion` costs the sum of its body's flops
/// but only its own operand and result bytes: that is what fusion saves.
/// `isMatrix` is the MatrixRole trait, of the op or of any op in a fusion.
OpCost estimateOpCost(Operation *op);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_ANALYSIS_OPCOST_H
