//===- GraphImporter.cpp - state of one ONNX graph import -----------------===//
//
// Graph-level import: inputs with shape binding, initializers, the node loop
// with the all-at-once unsupported-op check, outputs, and the helpers op
// converters use (inputs, attributes, known constants, diagnostics).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/GraphImporter.h"

#include "compiler/Import/ModelChecks.h"

#include "dialects/Tandem/IR/OwnedBlob.h"
#include "dialects/Tandem/IR/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::onnx_import;

/// Tensors with more elements than this are not tracked as known integers.
/// No tensor in an imported graph may hold more bytes than this (64 GiB):
/// far past any model that runs, and small enough that sizes never overflow
/// and a 200-byte model cannot ask for terabytes.
static constexpr int64_t kMaxTensorBytes = int64_t(1) << 36;
/// Dims, pads and sizes read from the model must lie within +-2^31.
static constexpr int64_t kMaxDimValue = int64_t(1) << 31;

GraphImporter::GraphImporter(MLIRContext &context, onnx::ModelProto &model,
                             StringRef path, const OnnxImportOptions &options)
    : ctx(context), model(model), path(path.str()), options(options),
      b(&context), nodeLoc(UnknownLoc::get(&context)) {
  for (const onnx::OperatorSetIdProto &op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      opsetVersion = op.version();
}

Location GraphImporter::fileLoc() const {
  return FileLineColLoc::get(&ctx, path, 0, 0);
}

InFlightDiagnostic GraphImporter::error() {
  InFlightDiagnostic diag = emitError(nodeLoc);
  diag << "node '" << nodeName << "' (" << node().op_type() << "): ";
  return diag;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

Type GraphImporter::elementType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  // Unsigned integers keep their signedness in the tandem dialect; the
  // lowering to linalg picks the unsigned arith ops from it.
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

std::string onnx_import::onnxTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  // Types newer than the protobuf definitions we build against have no
  // name there: the ones of onnx 1.17's TensorProto.DataType.
  switch (onnxType) {
  case 17:
    return "FLOAT8E4M3FN";
  case 18:
    return "FLOAT8E4M3FNUZ";
  case 19:
    return "FLOAT8E5M2";
  case 20:
    return "FLOAT8E5M2FNUZ";
  case 21:
    return "UINT4";
  case 22:
    return "INT4";
  case 23:
    return "FLOAT4E2M1";
  default:
    return "#" + std::to_string(onnxType);
  }
}

/// Bytes per element in the dense storage MLIR uses (1 for i1).
static int64_t storageBytes(Type type) {
  return type.isInteger(1) ? 1 : type.getIntOrFloatBitWidth() / 8;
}

/// Multiplies dims, failing on negative dims or overflow.
static std::optional<int64_t> checkedElementCount(ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && count > INT64_MAX / d)
      return std::nullopt;
    count *= d;
  }
  return count;
}

FailureOr<std::string>
GraphImporter::tensorBytes(const onnx::TensorProto &tensor, Type type,
                           int64_t count, StringRef what,
                           std::string *takeRaw) {
  int64_t width = storageBytes(type);
  if (count > INT64_MAX / 8)
    return emitError(fileLoc())
               << what << " has too many elements (" << count << ")",
           failure();
  int64_t expected = count * width;
  std::string bytes;

  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset" || entry.key() == "length") {
        int64_t v = 0;
        if (StringRef(entry.value()).getAsInteger(10, v) || v < 0)
          return emitError(fileLoc())
                     << what << " has an invalid external-data " << entry.key()
                     << " '" << entry.value() << "'",
                 failure();
        (entry.key() == "offset" ? offset : length) = v;
      }
    }
    if (location.empty())
      return emitError(fileLoc()) << what
                                  << " is stored externally but names no "
                                     "'location'",
             failure();
    FailureOr<std::string> full =
        resolveExternalData(path, location, what, fileLoc());
    if (failed(full))
      return failure();
    auto buffer = llvm::MemoryBuffer::getFile(*full, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return emitError(fileLoc())
                 << what << ": cannot read external data file '" << *full
                 << "': " << buffer.getError().message(),
             failure();
    int64_t fileSize = (*buffer)->getBufferSize();
    if (length < 0)
      length = fileSize - offset;
    if (offset > fileSize || length > fileSize - offset)
      return emitError(fileLoc())
                 << what << ": external data range [" << offset << ", "
                 << offset + length << ") lies outside '" << *full << "' ("
                 << fileSize << " bytes)",
             failure();
    if (length != expected)
      return emitError(fileLoc())
                 << what << " declares " << count << " elements (" << expected
                 << " bytes) but its external data holds " << length
                 << " bytes",
             failure();
    const char *start = (*buffer)->getBufferStart() + offset;
    bytes.assign(start, start + length);
    return bytes;
  }

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (static_cast<int64_t>(raw.size()) != expected)
      return emitError(fileLoc())
                 << what << " declares " << count << " elements (" << expected
                 << " bytes) but holds " << raw.size() << " bytes of data",
             failure();
    if (takeRaw)
      return std::move(*takeRaw);
    return raw;
  }

  // Typed fields. Compare the declared count with the data before allocating
  // anything, so a tensor declaring huge dims over little data is an error, not
  // an OOM.
  // (ONNX's field per type: float_data, double_data, int64_data,
  // uint64_data for UINT32 and UINT64, int32_data for the rest.)
  int64_t have = 0;
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    have = tensor.float_data_size();
    break;
  case onnx::TensorProto::DOUBLE:
    have = tensor.double_data_size();
    break;
  case onnx::TensorProto::INT64:
    have = tensor.int64_data_size();
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    have = tensor.uint64_data_size();
    break;
  default:
    have = tensor.int32_data_size();
    break;
  }
  if (have != count)
    return emitError(fileLoc()) << what << " declares " << count
                                << " elements but holds " << have,
           failure();
  bytes.resize(expected);
  if (count == 0)
    return bytes; // an empty tensor: nothing to copy
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    std::memcpy(bytes.data(), tensor.float_data().data(), expected);
    return bytes;
  case onnx::TensorProto::DOUBLE:
    std::memcpy(bytes.data(), tensor.double_data().data(), expected);
    return bytes;
  case onnx::TensorProto::INT64:
    std::memcpy(bytes.data(), tensor.int64_data().data(), expected);
    return bytes;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    // The low `width` bytes of each little-endian uint64 element.
    for (int64_t i = 0; i < count; ++i) {
      uint64_t v = tensor.uint64_data(i);
      std::memcpy(bytes.data() + i * width, &v, width);
    }
    return bytes;
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    for (int64_t i = 0; i < count; ++i) {
      int32_t v = tensor.int32_data(i);
      std::memcpy(bytes.data() + i * width, &v, width);
    }
    return bytes;
  default:
    return emitError(fileLoc()) << what << " has unsupported element type "
                                << onnxTypeName(tensor.data_type()),
           failure();
  }
}

FailureOr<ElementsAttr>
GraphImporter::tensorAttr(const onnx::TensorProto &tensor, StringRef what,
                          std::string *takeRaw) {
  Type type = elementType(tensor.data_type());
  if (!type)
    return emitError(fileLoc()) << what << " has unsupported element type "
                                << onnxTypeName(tensor.data_type()),
           failure();
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  std::optional<int64_t> count = checkedElementCount(dims);
  if (!count)
    return emitError(fileLoc())
               << what << " has invalid dims ["
               << llvm::join(
                      llvm::map_range(
                          dims, [](int64_t d) { return std::to_string(d); }),
                      ", ")
               << "]: negative or overflowing",
           failure();
  FailureOr<std::string> bytes =
      tensorBytes(tensor, type, *count, what, takeRaw);
  if (failed(bytes))
    return failure();
  auto tensorType = RankedTensorType::get(dims, type);
  if (type.isInteger(1)) {
    SmallVector<bool> bits(bytes->begin(), bytes->end());
    return cast<ElementsAttr>(DenseElementsAttr::get(tensorType, bits));
  }
  if (static_cast<int64_t>(bytes->size()) > options.resourceThresholdBytes) {
    std::string blob = tensor.name().empty() ? "constant" : tensor.name();
    for (char &c : blob)
      if (!llvm::isAlnum(c) && c != '_')
        c = '_';
    // The blob takes over the bytes: a large model's weights are never
    // held twice.
    return cast<ElementsAttr>(DenseResourceElementsAttr::get(
        tensorType, blob, ownedBlob(std::move(*bytes), alignof(int64_t))));
  }
  return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
      tensorType, ArrayRef<char>(bytes->data(), bytes->size())));
}

bool onnx_import::isKnownIntType(Type type) {
  return type.isSignlessInteger(64) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(1);
}

std::optional<KnownInts>
GraphImporter::knownFromTensor(const onnx::TensorProto &tensor) {
  Type type = elementType(tensor.data_type());
  if (!type || !isKnownIntType(type))
    return std::nullopt;
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  std::optional<int64_t> count = checkedElementCount(dims);
  if (!count || *count > kMaxKnownElements)
    return std::nullopt;
  // Decoding errors are reported when the tensor is imported as a constant.
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });
  FailureOr<std::string> bytes = tensorBytes(tensor, type, *count, "tensor");
  if (failed(bytes))
    return std::nullopt;
  KnownInts result{dims, {}, type};
  int64_t width = storageBytes(type);
  for (int64_t i = 0; i < *count; ++i) {
    const char *p = bytes->data() + i * width;
    if (width == 8) {
      int64_t v;
      std::memcpy(&v, p, 8);
      result.values.push_back(v);
    } else if (width == 4) {
      int32_t v;
      std::memcpy(&v, p, 4);
      result.values.push_back(v);
    } else {
      result.values.push_back(*p != 0);
    }
  }
  return result;
}

Value GraphImporter::materialize(const KnownInts &k) {
  auto type = RankedTensorType::get(k.shape, k.elementType);
  DenseElementsAttr attr;
  if (k.elementType.isInteger(1)) {
    SmallVector<bool> bits(k.values.begin(), k.values.end());
    attr = DenseElementsAttr::get(type, bits);
  } else {
    unsigned width = k.elementType.getIntOrFloatBitWidth();
    SmallVector<APInt> ints;
    for (int64_t v : k.values)
      ints.push_back(APInt(width, v, /*isSigned=*/true));
    attr = DenseElementsAttr::get(type, ints);
  }
  return create<ConstantOp>(cast<ElementsAttr>(attr));
}

Value GraphImporter::floatConstant(ArrayRef<int64_t> shape, Type elementType,
                                   ArrayRef<double> values) {
  auto ft = cast<FloatType>(elementType);
  SmallVector<APFloat> converted;
  for (double v : values) {
    APFloat f(v);
    bool losesInfo = false;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    converted.push_back(f);
  }
  auto attr = DenseElementsAttr::get(RankedTensorType::get(shape, elementType),
                                     converted);
  return create<ConstantOp>(cast<ElementsAttr>(attr));
}

Value GraphImporter::scalarConstant(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute attr;
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    APFloat v(value);
    bool losesInfo = false;
    v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    attr = DenseElementsAttr::get(type, v);
  } else {
    // The value's low bits: -1 is all ones in every width, and 255 in ui8
    // is 0xff.
    attr = DenseElementsAttr::get(
        type, APInt(elementType.getIntOrFloatBitWidth(),
                    static_cast<int64_t>(value), /*isSigned=*/true,
                    /*implicitTrunc=*/true));
  }
  return create<ConstantOp>(cast<ElementsAttr>(attr));
}

//===----------------------------------------------------------------------===//
// Inputs, attributes, outputs of the current node
//===----------------------------------------------------------------------===//

FailureOr<Value> GraphImporter::input(unsigned i) {
  if (!hasInput(i))
    return error() << "input #" << i << " is required but missing", failure();
  const std::string &name = node().input(i);
  if (Value v = values.lookup(name))
    return v;
  auto it = known.find(name);
  if (it != known.end()) {
    Value v = materialize(it->second);
    values[name] = v;
    return v;
  }
  return error() << "input #" << i << " '" << name
                 << "' is not produced by any node, graph input or initializer",
         failure();
}

FailureOr<RankedTensorType> GraphImporter::requiredInputType(unsigned i) {
  if (RankedTensorType type = inputType(i))
    return type;
  return error() << "input #" << i << " is required but missing", failure();
}

RankedTensorType GraphImporter::inputType(unsigned i) {
  if (!hasInput(i))
    return {};
  const std::string &name = node().input(i);
  if (Value v = values.lookup(name))
    return cast<RankedTensorType>(v.getType());
  auto it = known.find(name);
  if (it != known.end())
    return RankedTensorType::get(it->second.shape, it->second.elementType);
  return {};
}

const KnownInts *GraphImporter::knownInput(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = known.find(node().input(i));
  return it == known.end() ? evaluatedInput(i) : &it->second;
}

FailureOr<std::vector<int64_t>> GraphImporter::constantInts(unsigned i,
                                                            StringRef what) {
  if (const KnownInts *k = knownInput(i))
    return k->values;
  // Larger than the tracked values (BEiT's relative position indices for
  // ScatterND: 196 x 196 x 3 built by Where and Expand over constants), yet
  // constant.
  if (Value v = hasInput(i) ? values.lookup(node().input(i)) : Value()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(evaluateLargeConstant(v));
    if (dense && isKnownIntType(dense.getElementType()) &&
        dense.getNumElements() <= kMaxConstantIndexElements)
      return knownIntValues(dense);
  }
  if (!hasInput(i))
    return error() << "input #" << i << " (" << what << ") is missing",
           failure();
  InFlightDiagnostic diag =
      error() << "input #" << i << " (" << what << ") '" << node().input(i)
              << "' must be known at compile time (a constant "
                 "or a foldable shape computation)";
  addBindHint(diag, i);
  return failure();
}

void GraphImporter::addBindHint(InFlightDiagnostic &diag, unsigned i) const {
  if (!hasInput(i))
    return;
  if (isGraphInput(node().input(i))) {
    diag << "; it is a graph input: fix its value with --bind-input "
         << node().input(i) << "=FILE.pb";
    return;
  }
  // A value computed from graph inputs: name the ones it depends on.
  SmallVector<std::string> inputs =
      graphInputsBehind(values.lookup(node().input(i)));
  if (inputs.empty())
    return;
  diag << "; it is computed from graph input" << (inputs.size() > 1 ? "s" : "")
       << " ";
  for (auto [n, name] : llvm::enumerate(inputs))
    diag << (n ? ", '" : "'") << name << "'";
  diag << ": fix " << (inputs.size() > 1 ? "their values" : "its value")
       << " with";
  for (const std::string &name : inputs)
    diag << " --bind-input " << name << "=FILE.pb";
}

SmallVector<std::string> GraphImporter::graphInputsBehind(Value v) const {
  SmallVector<std::string> names;
  if (!v)
    return names;
  // The block arguments v depends on, through the ops computing it.
  llvm::SmallPtrSet<Value, 8> arguments;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (isa<BlockArgument>(value)) {
      arguments.insert(value);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  for (const onnx::ValueInfoProto &info : model.graph().input())
    if (isGraphInput(info.name()) &&
        arguments.contains(values.lookup(info.name())))
      names.push_back(info.name());
  return names;
}

bool GraphImporter::isGraphInput(StringRef name) const {
  return llvm::any_of(model.graph().input(),
                      [&](const onnx::ValueInfoProto &info) {
                        return info.name() == name;
                      }) &&
         llvm::none_of(
             model.graph().initializer(),
             [&](const onnx::TensorProto &t) { return t.name() == name; });
}

FailureOr<std::vector<int64_t>> GraphImporter::constantDims(unsigned i,
                                                            StringRef what) {
  FailureOr<std::vector<int64_t>> values = constantInts(i, what);
  if (failed(values))
    return failure();
  for (int64_t v : *values)
    if (v > kMaxDimValue || v < -kMaxDimValue)
      return error() << what << " value " << v << " is out of range", failure();
  return values;
}

/// Why a tensor of `type` is too large to import, or "" when it is not.
static std::string tensorSizeProblem(RankedTensorType type) {
  std::optional<int64_t> count = checkedElementCount(type.getShape());
  int64_t width = storageBytes(type.getElementType());
  if (count && *count <= kMaxTensorBytes / width)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  if (count)
    os << "holds " << *count << " elements ("
       << llvm::format("%.3g", double(*count) * width) << " bytes), ";
  else
    os << "has more elements than int64 counts, ";
  os << "over the limit of 64 GiB per tensor";
  return text;
}

LogicalResult GraphImporter::checkResultSize(StringRef opName, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  std::string problem = tensorSizeProblem(tensor);
  if (problem.empty())
    return success();
  return error() << "'" << opName << "' result " << type << " " << problem,
         failure();
}

FailureOr<std::optional<double>> GraphImporter::constantScalar(unsigned i,
                                                               StringRef what) {
  if (!hasInput(i))
    return std::optional<double>();
  if (const KnownInts *k = knownInput(i)) {
    if (k->values.size() != 1)
      return error() << what << " must be a scalar", failure();
    return std::optional<double>(static_cast<double>(k->values[0]));
  }
  // Constants, and IR over constants that folds (a size cast to float, a
  // Ceil of a constant), read with their element type's signedness.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(
          evaluateConstant(values.lookup(node().input(i))));
      dense && dense.getNumElements() == 1) {
    Type elem = dense.getElementType();
    if (isa<FloatType>(elem))
      return std::optional<double>(
          (*dense.getValues<APFloat>().begin()).convertToDouble());
    APInt v = *dense.getValues<APInt>().begin();
    return std::optional<double>(elem.isUnsignedInteger() || elem.isInteger(1)
                                     ? double(v.getZExtValue())
                                     : double(v.getSExtValue()));
  }
  InFlightDiagnostic diag = error() << "input #" << i << " (" << what
                                    << ") must be a constant scalar";
  addBindHint(diag, i);
  return failure();
}

const onnx::AttributeProto *GraphImporter::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node().attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t GraphImporter::attrInt(StringRef name, int64_t dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : dflt;
}

float GraphImporter::attrFloat(StringRef name, float dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : dflt;
}

std::string GraphImporter::attrString(StringRef name, StringRef dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : dflt.str();
}

std::optional<std::vector<int64_t>>
GraphImporter::attrInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

void GraphImporter::setOutput(unsigned i, Value value) {
  if (static_cast<int>(i) < node().output_size() && !node().output(i).empty())
    values[node().output(i)] = value;
}

void GraphImporter::setKnownOutput(unsigned i, KnownInts value) {
  if (static_cast<int>(i) < node().output_size() && !node().output(i).empty())
    known[node().output(i)] = std::move(value);
}

LogicalResult GraphImporter::checkUnusedOutputs(unsigned supported) {
  for (int i = supported; i < node().output_size(); ++i) {
    if (node().output(i).empty())
      continue;
    // An output nobody reads is fine (e.g. Dropout's mask).
    bool used = false;
    for (const onnx::NodeProto &n : model.graph().node())
      for (const std::string &in : n.input())
        used |= in == node().output(i);
    for (const onnx::ValueInfoProto &out : model.graph().output())
      used |= out.name() == node().output(i);
    if (used)
      return error() << "output #" << i << " '" << node().output(i)
                     << "' is not supported",
             failure();
  }
  return success();
}

FailureOr<int64_t> GraphImporter::normalizeAxis(int64_t axis, int64_t rank,
                                                StringRef what) {
  if (axis < -rank || axis >= rank)
    return error() << what << " " << axis << " is out of range for rank "
                   << rank,
           failure();
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importInitializers(const onnx::GraphProto &graph,
                                                onnx::GraphProto *owned) {
  for (auto [i, init] : llvm::enumerate(graph.initializer())) {
    std::string what = "initializer '" + init.name() + "'";
    if (init.name().empty())
      return emitError(fileLoc()) << "an initializer has no name", failure();
    // A name declared twice keeps its last declaration (checkTensorNames
    // warned), whichever map the earlier one went to.
    known.erase(init.name());
    values.erase(init.name());
    if (std::optional<KnownInts> k = knownFromTensor(init)) {
      known[init.name()] = std::move(*k);
      continue;
    }
    std::string *raw = owned && init.has_raw_data()
                           ? owned->mutable_initializer(static_cast<int>(i))
                                 ->mutable_raw_data()
                           : nullptr;
    FailureOr<ElementsAttr> attr = tensorAttr(init, what, raw);
    if (failed(attr))
      return failure();
    values[init.name()] = ConstantOp::create(
        b, NameLoc::get(StringAttr::get(&ctx, init.name()), fileLoc()), *attr);
  }
  return success();
}

/// Formats dims with symbolic ones named, e.g. "batch x 3 x 224 x 224".
static std::string describeDims(const onnx::TensorShapeProto &shape) {
  std::string s;
  for (auto [i, dim] : llvm::enumerate(shape.dim())) {
    if (i)
      s += "x";
    if (dim.has_dim_value())
      s += std::to_string(dim.dim_value());
    else if (!dim.dim_param().empty())
      s += dim.dim_param();
    else
      s += "?";
  }
  return s;
}

LogicalResult GraphImporter::importInputs(func::FuncOp &func) {
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());

  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  bool ok = true;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    // Older exporters also list initializers as graph inputs.
    if (initializers.contains(info.name()))
      continue;
    auto fail = [&]() -> InFlightDiagnostic {
      ok = false;
      return emitError(fileLoc()) << "graph input '" << info.name() << "': ";
    };
    if (!info.type().has_tensor_type()) {
      fail() << "only tensor inputs are supported";
      continue;
    }
    const onnx::TypeProto::Tensor &tt = info.type().tensor_type();
    Type elem = elementType(tt.elem_type());
    if (!elem) {
      fail() << "unsupported element type " << onnxTypeName(tt.elem_type());
      continue;
    }
    auto bound = options.inputShapes.find(info.name());
    SmallVector<int64_t> dims;
    if (!tt.has_shape()) {
      if (bound == options.inputShapes.end()) {
        fail() << "has no declared shape; bind one with --input-shape "
               << info.name() << "=<d0>x<d1>...";
        continue;
      }
      dims.assign(bound->second.begin(), bound->second.end());
    } else {
      const onnx::TensorShapeProto &shape = tt.shape();
      if (bound != options.inputShapes.end()) {
        if (static_cast<int>(bound->second.size()) != shape.dim_size()) {
          fail() << "--input-shape gives rank " << bound->second.size()
                 << " but the model declares rank " << shape.dim_size() << " ("
                 << describeDims(shape) << ")";
          continue;
        }
        for (auto [i, dim] : llvm::enumerate(shape.dim())) {
          if (dim.has_dim_value() && dim.dim_value() != bound->second[i]) {
            fail() << "--input-shape sets dim " << i << " to "
                   << bound->second[i] << " but the model fixes it to "
                   << dim.dim_value();
            break;
          }
        }
        if (!ok)
          continue;
        dims.assign(bound->second.begin(), bound->second.end());
      } else {
        for (auto [i, dim] : llvm::enumerate(shape.dim())) {
          if (dim.has_dim_value() && dim.dim_value() >= 0) {
            dims.push_back(dim.dim_value());
            continue;
          }
          std::string param = dim.dim_param().empty() ? "?" : dim.dim_param();
          if (i == 0 && !dim.dim_param().empty()) {
            emitWarning(fileLoc())
                << "graph input '" << info.name() << "': symbolic batch dim '"
                << param << "' defaults to " << options.defaultBatch
                << "; bind it with --input-shape " << info.name() << "=...";
            dims.push_back(options.defaultBatch);
            continue;
          }
          fail() << "dim " << i << " ('" << param << "') of shape "
                 << describeDims(shape)
                 << " is unknown; bind it with --input-shape " << info.name()
                 << "=<d0>x<d1>...";
          break;
        }
        if (!ok)
          continue;
      }
    }
    if (!checkedElementCount(dims)) {
      fail() << "shape overflows or has negative dims";
      continue;
    }
    auto inputType = RankedTensorType::get(dims, elem);
    if (std::string problem = tensorSizeProblem(inputType); !problem.empty()) {
      fail() << inputType << " " << problem;
      continue;
    }
    inputTypes.push_back(inputType);
    inputNames.push_back(info.name());
  }
  for (const auto &[name, dims] : options.inputShapes)
    if (!llvm::is_contained(inputNames, name) && ok) {
      emitError(fileLoc()) << "--input-shape names '" << name
                           << "', which is not a graph input";
      ok = false;
    }
  if (!ok)
    return failure();

  auto funcType = b.getFunctionType(inputTypes, {});
  func = func::FuncOp::create(b, fileLoc(), options.functionName, funcType);
  Block *entry = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    values[name] = entry->getArgument(i);
    func.setArgAttr(i, "onnx.name", b.getStringAttr(name));
  }
  b.setInsertionPointToStart(entry);
  return success();
}

/// Why an op type is outside what a static-shape compiler can take, for the
/// kinds that will stay so; empty for the others.
static std::string whyUnsupported(StringRef type) {
  static const char *dataShaped[] = {"NonZero", "Unique", "NonMaxSuppression",
                                     "StringSplit"};
  if (llvm::is_contained(dataShaped, type))
    return "its output shape depends on the data; Tandem compiles static "
           "shapes";
  if (type.starts_with("Sequence") || type.starts_with("Optional") ||
      type == "ConcatFromSequence" || type == "SplitToSequence")
    return "sequence and optional values are not supported, only tensors";
  if (type.starts_with("String") || type == "RegexFullMatch" ||
      type == "TfIdfVectorizer")
    return "string tensors are not supported";
  if (type.starts_with("Random") || type == "Bernoulli" ||
      type == "Multinomial")
    return "random number generation is not supported";
  return "";
}

LogicalResult GraphImporter::checkSupported(const ConverterMap &converters) {
  // Collect every unsupported op before failing, so users see them all: each
  // op type once, in order of first use, with the names of its nodes.
  SmallVector<std::pair<std::string, SmallVector<std::string>>> byType;
  llvm::StringMap<size_t> typeIndex;
  size_t nodes = 0;
  // Subgraphs (If branches, Loop bodies) are imported inline: their ops
  // count too.
  std::function<void(const onnx::GraphProto &)> visit =
      [&](const onnx::GraphProto &graph) {
        for (const onnx::NodeProto &n : graph.node()) {
          for (const onnx::AttributeProto &a : n.attribute()) {
            if (a.has_g())
              visit(a.g());
            for (const onnx::GraphProto &g : a.graphs())
              visit(g);
          }
          bool defaultDomain = n.domain().empty() || n.domain() == "ai.onnx";
          if (defaultDomain && converters.count(n.op_type()))
            continue;
          std::string type =
              (defaultDomain ? "" : n.domain() + ".") + n.op_type();
          auto [it, inserted] = typeIndex.try_emplace(type, byType.size());
          if (inserted)
            byType.push_back({type, {}});
          byType[it->second].second.push_back(
              n.name().empty() ? "<unnamed>" : "'" + n.name() + "'");
          ++nodes;
        }
      };
  visit(model.graph());
  if (byType.empty())
    return success();
  SmallVector<std::string> entries;
  for (auto &[type, names] : byType) {
    std::string why = whyUnsupported(type);
    entries.push_back(type + " (" + llvm::join(names, ", ") + ")" +
                      (why.empty() ? "" : " [" + why + "]"));
  }
  InFlightDiagnostic diag = emitError(fileLoc());
  diag << nodes << (nodes == 1 ? " node uses " : " nodes use ") << byType.size()
       << (byType.size() == 1 ? " unsupported op type: "
                              : " unsupported op types: ")
       << llvm::join(entries, ", ");
  return failure();
}

static ConverterMap allConverters() {
  ConverterMap converters;
  registerElementwiseConverters(converters);
  registerNNConverters(converters);
  registerConvPoolConverters(converters);
  registerComposedConverters(converters);
  registerResizeConverters(converters);
  registerEinsumConverters(converters);
  registerRecurrentConverters(converters);
  registerControlFlowConverters(converters);
  registerQuantConverters(converters);
  registerQuantContractionConverters(converters);
  registerCol2ImConverters(converters);
  registerShapeConverters(converters);
  registerIndexConverters(converters);
  registerSamplingConverters(converters);
  return converters;
}

std::vector<std::string> mlir::tandem::supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &entry : allConverters())
    ops.push_back(entry.getKey().str());
  llvm::sort(ops);
  return ops;
}

LogicalResult GraphImporter::importNodes(const onnx::GraphProto &graph,
                                         StringRef namePrefix) {
  unsigned index = 0;
  for (const onnx::NodeProto &n : graph.node()) {
    currentNode = &n;
    // Unnamed nodes are named after their type and position.
    nodeName = namePrefix.str() +
               (n.name().empty() ? n.op_type() + "_" + std::to_string(index)
                                 : n.name());
    ++index;
    nodeLoc = NameLoc::get(StringAttr::get(&ctx, nodeName), fileLoc());
    for (auto [i, in] : llvm::enumerate(n.input()))
      if (!in.empty() && !values.count(in) && !known.count(in))
        return error() << "input #" << i << " '" << in
                       << "' is not produced by any earlier node, graph "
                          "input or initializer (missing initializer or "
                          "nodes out of topological order)",
               failure();
    nodeFailed = false;
    auto converter = convertersInUse->find(n.op_type());
    if (converter == convertersInUse->end())
      return error() << "unsupported op", failure();
    if (failed(converter->second(*this)) || nodeFailed)
      return failure();
    for (auto [i, out] : llvm::enumerate(n.output()))
      if (!out.empty() && !values.count(out) && !known.count(out) &&
          failed(checkUnusedOutputs(i)))
        return failure();
  }
  return success();
}

LogicalResult GraphImporter::importSubgraph(const onnx::GraphProto &graph,
                                            StringRef namePrefix) {
  // The converter of the enclosing node resumes after the subgraph.
  const onnx::NodeProto *node = currentNode;
  std::string name = nodeName;
  Location loc = nodeLoc;
  LogicalResult result = success(succeeded(importInitializers(graph)) &&
                                 succeeded(importNodes(graph, namePrefix)));
  currentNode = node;
  nodeName = name;
  nodeLoc = loc;
  nodeFailed = false;
  return result;
}

std::optional<GraphImporter::Tensor>
GraphImporter::lookupTensor(StringRef name) const {
  if (Value v = values.lookup(name))
    return Tensor{v, std::nullopt};
  auto it = known.find(name);
  if (it != known.end())
    return Tensor{Value(), it->second};
  return std::nullopt;
}

void GraphImporter::defineTensor(StringRef name, const Tensor &tensor) {
  values.erase(name);
  known.erase(name);
  if (tensor.known)
    known[name] = *tensor.known;
  else
    values[name] = tensor.value;
}

void GraphImporter::setOutputTensor(unsigned i, const Tensor &tensor) {
  if (static_cast<int>(i) < node().output_size() && !node().output(i).empty())
    defineTensor(node().output(i), tensor);
}

Value GraphImporter::materializeTensor(const Tensor &tensor) {
  return tensor.known ? materialize(*tensor.known) : tensor.value;
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc());
  b.setInsertionPointToStart(module->getBody());

  ConverterMap converters = allConverters();
  // Names and attribute types first: the other checks and every converter
  // rely on one definition per name and on attributes of their schema's
  // type.
  if (failed(checkTensorNames(model.graph(), fileLoc())) ||
      failed(checkAttributeTypes(model.graph(), opsetVersion, fileLoc())) ||
      failed(checkSupported(converters)))
    return nullptr;

  func::FuncOp func;
  if (failed(importInputs(func)) ||
      failed(importInitializers(model.graph(), model.mutable_graph())))
    return nullptr;

  convertersInUse = &converters;
  if (failed(importNodes(model.graph(), "")))
    return nullptr;
  currentNode = nullptr;

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : model.graph().output()) {
    Value v = values.lookup(out.name());
    if (!v) {
      auto it = known.find(out.name());
      if (it == known.end())
        return emitError(fileLoc()) << "graph output '" << out.name()
                                    << "' is not produced by any node",
               nullptr;
      b.setInsertionPointToEnd(&func.getBody().front());
      v = materialize(it->second);
    }
    results.push_back(v);
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  func::ReturnOp::create(b, fileLoc(), results);
  func.setFunctionType(b.getFunctionType(func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(model.graph().output()))
    func.setResultAttr(i, "onnx.name", b.getStringAttr(out.name()));

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

SmallVector<int64_t>
mlir::tandem::onnx_import::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}
