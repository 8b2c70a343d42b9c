//===- InputBinding.cpp - graph inputs fixed to constant values -----------===//

#include "compiler/Import/InputBinding.h"

#include "compiler/Import/GraphImporter.h"
#include "compiler/Import/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

#include <limits>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

/// Describes `tensor`'s dims as "2x3" ("scalar" for rank 0).
static std::string describe(const onnx::TensorProto &tensor) {
  if (tensor.dims_size() == 0)
    return "scalar";
  std::string s;
  for (int i = 0; i < tensor.dims_size(); ++i)
    s += (i ? "x" : "") + std::to_string(tensor.dims(i));
  return s;
}

/// Checks `tensor` against the declared type of graph input `info`; returns
/// the problem, or "" when it fits.
static std::string mismatch(const onnx::ValueInfoProto &info,
                            const onnx::TensorProto &tensor) {
  if (!info.type().has_tensor_type())
    return "the input is not a tensor";
  const onnx::TypeProto::Tensor &tt = info.type().tensor_type();
  if (tt.elem_type() != tensor.data_type())
    return "the file holds " + onnxTypeName(tensor.data_type()) +
           " but the input is " + onnxTypeName(tt.elem_type());
  if (!tt.has_shape())
    return "";
  const onnx::TensorShapeProto &shape = tt.shape();
  if (shape.dim_size() != tensor.dims_size())
    return "the file holds a tensor of rank " +
           std::to_string(tensor.dims_size()) + " (" + describe(tensor) +
           ") but the input has rank " + std::to_string(shape.dim_size());
  for (int i = 0; i < shape.dim_size(); ++i)
    if (shape.dim(i).has_dim_value() &&
        shape.dim(i).dim_value() != tensor.dims(i))
      return "the file holds a " + describe(tensor) + " tensor but the input " +
             "fixes dim " + std::to_string(i) + " to " +
             std::to_string(shape.dim(i).dim_value());
  return "";
}

LogicalResult mlir::tandem::onnx_import::bindInputs(
    onnx::ModelProto &model, const std::map<std::string, std::string> &bindings,
    Location fileLoc) {
  onnx::GraphProto &graph = *model.mutable_graph();
  bool ok = true;
  for (const auto &[name, file] : bindings) {
    auto fail = [&]() -> InFlightDiagnostic {
      ok = false;
      return emitError(fileLoc)
             << "--bind-input " << name << "=" << file << ": ";
    };
    const onnx::ValueInfoProto *info = nullptr;
    for (const onnx::ValueInfoProto &in : graph.input())
      if (in.name() == name)
        info = &in;
    bool isInitializer =
        llvm::any_of(graph.initializer(), [&](const onnx::TensorProto &t) {
          return t.name() == name;
        });
    if (!info || isInitializer) {
      fail() << (info ? "the input already has a value (an initializer)"
                      : "the model has no graph input of that name");
      continue;
    }
    if (std::string why = checkRegularFile(file); !why.empty()) {
      fail() << "cannot read the file: " << why;
      continue;
    }
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      fail() << "cannot read the file: " << buffer.getError().message();
      continue;
    }
    StringRef bytes = (*buffer)->getBuffer();
    onnx::TensorProto tensor;
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
        tensor.data_type() == onnx::TensorProto::UNDEFINED) {
      fail() << "not a serialised ONNX TensorProto (write one with "
                "onnx.numpy_helper.from_array(array).SerializeToString())";
      continue;
    }
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
      fail() << "the tensor refers to external data; store it in the file";
      continue;
    }
    if (std::string why = mismatch(*info, tensor); !why.empty()) {
      fail() << why;
      continue;
    }
    tensor.set_name(name);
    *graph.add_initializer() = std::move(tensor);
  }
  return success(ok);
}
