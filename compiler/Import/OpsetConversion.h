//===- OpsetConversion.h - older opsets converted on import -----*- C++ -*-===//
//
// Models exported at a default-domain opset below the importer's lowest
// (opset 11 is still common) are converted with onnx's own version
// converter before import, instead of sending the user off to do it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_IMPORT_OPSETCONVERSION_H
#define TANDEM_COMPILER_IMPORT_OPSETCONVERSION_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

namespace mlir::tandem::onnx_import {

/// Replaces `model` (at default-domain opset `from`) by its conversion to
/// opset `to` with onnx's version converter. Fails with a diagnostic at
/// `fileLoc` naming the reason when the converter cannot convert it.
LogicalResult convertOpset(onnx::ModelProto &model, int64_t from, int64_t to,
                           Location fileLoc);

} // namespace mlir::tandem::onnx_import

#endif // TANDEM_COMPILER_IMPORT_OPSETCONVERSION_H
