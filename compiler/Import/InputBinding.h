//===- InputBinding.h - graph inputs fixed to constant values ---*- C++ -*-===//
//
// `tandemc --bind-input NAME=FILE.pb` specialises a model on a fixed value
// of one graph input: the value becomes an initializer, so ops that need it
// at compile time (axes, pads, shapes, K, min/max) can fold it and the
// artifact has one input fewer.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_IMPORT_INPUTBINDING_H
#define TANDEM_COMPILER_IMPORT_INPUTBINDING_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

namespace mlir::tandem::onnx_import {

/// Reads each `bindings` entry (graph input name -> ONNX TensorProto file)
/// and adds its tensor to `model` as an initializer named after the input.
/// The input must be a graph input that is not already an initializer, and
/// the tensor must have the input's element type and agree with its
/// declared dims. Emits every problem at `fileLoc`.
LogicalResult bindInputs(onnx::ModelProto &model,
                         const std::map<std::string, std::string> &bindings,
                         Location fileLoc);

} // namespace mlir::tandem::onnx_import

#endif // TANDEM_COMPILER_IMPORT_INPUTBINDING_H
