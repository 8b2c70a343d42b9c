//===- ModelChecks.h - structural checks of an ONNX model -------*- C++ -*-===//
//
// Checks the importer runs before converting any node, so a malformed or
// hostile model is rejected with a diagnostic instead of being misread:
// tensor names, attribute types and external-data locations.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_IMPORT_MODELCHECKS_H
#define TANDEM_COMPILER_IMPORT_MODELCHECKS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace mlir::tandem::onnx_import {

/// Every tensor name is defined once: no duplicate graph inputs, no node
/// output that redefines an input, initializer or another node's output, and
/// no graph output listed twice. Duplicate initializers only warn (the last
/// one is used, as in onnxruntime). Emits every problem at `fileLoc`.
LogicalResult checkTensorNames(const onnx::GraphProto &graph, Location fileLoc);

/// Every attribute of a default-domain node has the type its op's schema (at
/// `opset`) declares: an `axis` given as FLOAT is an error, not 0.
LogicalResult checkAttributeTypes(const onnx::GraphProto &graph, int64_t opset,
                                  Location fileLoc);

/// The real path of external data `location` of the model at `modelPath`:
/// relative, without "..", inside the model's folder after symbolic links are
/// resolved, and a regular file (never a device, FIFO or folder, which could
/// hang or leak other files). `what` names the tensor in diagnostics.
FailureOr<std::string> resolveExternalData(StringRef modelPath,
                                           StringRef location, StringRef what,
                                           Location fileLoc);

} // namespace mlir::tandem::onnx_import

#endif // TANDEM_COMPILER_IMPORT_MODELCHECKS_H
