//===- OpSupport.h - which ops a device kind can run ------------*- C++ -*-===//
//
// The one table placement reads to keep ops off devices that cannot run
// them. GPU code generation extends it as it learns new ops.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PLACEMENT_OPSUPPORT_H
#define TANDEM_PASSES_PLACEMENT_OPSUPPORT_H

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace mlir::tandem {

/// Returns why `op` cannot run on a GPU, or std::nullopt when it can. Ops on
/// integer data (shape arithmetic the importer could not fold) stay on the
/// host, and so do ops without a GPU lowering.
std::optional<std::string> whyNotOnGpu(Operation *op);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PLACEMENT_OPSUPPORT_H
