//===- GraphImporter.h - state of one ONNX graph import ---------*- C++ -*-===//
//
// The importer's internal interface: the tensors imported so far (as SSA
// values or as compile-time known integers), the current node, its inputs
// and attributes, and diagnostics that name the node. Op converters
// (Onnx*Ops.cpp) use it; nothing outside compiler/Import includes it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_COMPILER_IMPORT_GRAPHIMPORTER_H
#define TANDEM_COMPILER_IMPORT_GRAPHIMPORTER_H

#include "compiler/Import/OnnxImporter.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>

namespace mlir::tandem::onnx_import {

/// An integer or boolean tensor whose value is known at import time. Shape
/// subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) are
/// evaluated on these and never reach the IR.
struct KnownInts {
  SmallVector<int64_t> shape;
  std::vector<int64_t> values;
  /// i64, i32 or i1 (isKnownIntType): the folders compute in int64 with
  /// signed semantics, so the narrower and unsigned integers stay in the IR,
  /// where the tandem folders and the lowering honour their signedness.
  Type elementType;
};

/// Whether import-time folding tracks tensors of `type` as KnownInts.
bool isKnownIntType(Type type);

/// The values of `dense` (of a type isKnownIntType accepts) as int64, in
/// row-major order: i1 as 0 or 1, the others sign-extended.
std::vector<int64_t> knownIntValues(DenseElementsAttr dense);

/// Known tensors with more elements than this stay in the IR.
constexpr int64_t kMaxKnownElements = 4096;

/// GraphImporter::constantInts still reads a constant integer input of up
/// to this many elements (gather and scatter indices) that is not tracked
/// as known values.
constexpr int64_t kMaxConstantIndexElements = int64_t(1) << 24;

class GraphImporter;

/// Folds the current node's inputs into one value with the binary op `OpT`
/// (Sum, Max, Min, Mean's sum): input 0, then OpT(acc, input i) for each
/// further input, whose element type must match input 0's. Defined below.
template <typename OpT> FailureOr<Value> chainInputs(GraphImporter &im);

/// Converts the current node of `importer`. Returns failure after emitting a
/// diagnostic.
using OpConverter = std::function<LogicalResult(GraphImporter &importer)>;
using ConverterMap = llvm::StringMap<OpConverter>;

/// The ONNX name of an element type ("FLOAT", "INT64", ... or "#N").
std::string onnxTypeName(int32_t onnxType);

void registerElementwiseConverters(ConverterMap &map);
/// Activations built from elementwise tandem ops (LeakyRelu, PRelu, Elu,
/// Selu, Celu, Softplus, Softsign, Mish, ThresholdedRelu, Shrink).
void registerActivationConverters(ConverterMap &map);
/// Trigonometric and rounding functions, Sign, Mod, IsNaN/IsInf, logical and
/// bitwise ops, BitShift, Mean, CastLike and Size.
void registerMathConverters(ConverterMap &map);
void registerNNConverters(ConverterMap &map);
/// Conv, ConvTranspose, MaxPool, AveragePool and LpPool in 1-D, 2-D and 3-D.
void registerConvPoolConverters(ConverterMap &map);
/// Ops decomposed into other tandem ops: LogSoftmax, the derived reductions,
/// global max/Lp pools, the normalisations, Tile, DepthToSpace,
/// SpaceToDepth, Trilu, OneHot, Range and EyeLike.
void registerComposedConverters(ConverterMap &map);
/// Resize (every mode), as gathers with constant indices and weights.
void registerResizeConverters(ConverterMap &map);
/// Einsum, as diagonals, sums, transposes and batched matmuls.
void registerEinsumConverters(ConverterMap &map);
/// LSTM, GRU and RNN, unrolled over the static sequence length.
void registerRecurrentConverters(ConverterMap &map);
/// If with a condition known at compile time (the branch inlined) and Loop
/// with a known trip count and condition (unrolled).
void registerControlFlowConverters(ConverterMap &map);
/// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear, computed in
/// float as onnxruntime computes QDQ models.
void registerQuantConverters(ConverterMap &map);
/// MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv: exact i32
/// accumulation, then (QLinear*) onnxruntime's float requantisation.
void registerQuantContractionConverters(ConverterMap &map);
/// Col2Im, as a sum of strided placements of the column blocks.
void registerCol2ImConverters(ConverterMap &map);

/// The current Conv-like node's convolution of `x` by `w` (plus the
/// optional `bias`), from its kernel_shape, strides, pads, auto_pad,
/// dilations and group attributes; 1-D, 2-D and 3-D inputs (OnnxConvPool.cpp).
FailureOr<Value> convolve(GraphImporter &im, Value x, Value w, Value bias);

/// ONNX MatMul of `a` and `b` (NumPy semantics: 1-D operands promoted, and
/// the added dim dropped again).
FailureOr<Value> numpyMatmul(GraphImporter &im, Value a, Value b);

/// `v` (a scale or zero point: one value, or 1-D with `axisSize` values)
/// shaped to broadcast along `axis` of a tensor of `rank`; `what` names it
/// in the diagnostic.
FailureOr<Value> alongAxis(GraphImporter &im, Value v, int64_t rank,
                           int64_t axis, int64_t axisSize, StringRef what);

/// The range [lo, hi] of integer type `t` (signed, or ui8 ... ui64).
std::pair<double, double> intRange(Type t);
void registerShapeConverters(ConverterMap &map);
/// ArgMax, ArgMin, GatherElements, GatherND, CumSum and TopK.
void registerIndexConverters(ConverterMap &map);
/// GridSample, RoiAlign and ReverseSequence: gathers at positions computed
/// from run-time data, with weighted sums.
void registerSamplingConverters(ConverterMap &map);

/// The row-major strides of `shape` (in elements).
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape);

/// Evaluates `fn` elementwise over known operands with NumPy broadcasting;
/// std::nullopt when the shapes do not broadcast or `fn` declines.
std::optional<KnownInts>
foldKnown(ArrayRef<const KnownInts *> operands, Type resultType,
          function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fn);

/// Fails with a diagnostic when inputs `i` and `j` have different element
/// types.
LogicalResult checkSameElementType(GraphImporter &im, unsigned i, unsigned j);

/// `fn(x)`, computed in f32 when `x` is f16 or bf16 (cast in, and the
/// result cast back), as onnxruntime's kernels compute narrow floats: a
/// decomposition evaluated in f16 rounds every intermediate (exp(x) - 1 is 0
/// for tiny x).
Value computeInF32(GraphImporter &im, Value x, function_ref<Value(Value)> fn);

/// The axes an ONNX reduction node reduces over, sorted and unique.
struct ReduceAxes {
  SmallVector<int64_t> axes;
  bool keepDims = true;
  /// The node passes its input through (empty axes with
  /// noop_with_empty_axes, or a rank-0 input).
  bool noop = false;
};

/// Resolves the current reduction node's axes: an attribute before opset
/// `axesInputOpset`, input 1 (known at compile time) from it; no axes means
/// all of them unless noop_with_empty_axes is set.
FailureOr<ReduceAxes> resolveReduceAxes(GraphImporter &im,
                                        int64_t axesInputOpset);

/// Converts input 0 to `target` (ONNX Cast and CastLike); known integers stay
/// known.
LogicalResult convertCastTo(GraphImporter &im, Type target);

class GraphImporter {
public:
  /// Imports `model`, whose main graph's initializers give up their raw
  /// data to the weights they become (the protobuf no longer holds it
  /// afterwards).
  GraphImporter(MLIRContext &context, onnx::ModelProto &model, StringRef path,
                const OnnxImportOptions &options);

  /// Imports the model's main graph.
  OwningOpRef<ModuleOp> run();

  //===--------------------------------------------------------------------===//
  // For converters: the current node
  //===--------------------------------------------------------------------===//

  const onnx::NodeProto &node() const { return *currentNode; }
  /// The default-domain opset the model imports.
  int64_t opset() const { return opsetVersion; }
  OpBuilder &builder() { return b; }
  MLIRContext *context() { return &ctx; }
  /// The location of the current node: its name, inside the model file.
  Location loc() const { return nodeLoc; }

  /// Starts an error "node 'NAME' (OpType): " at the node.
  InFlightDiagnostic error();

  //===--------------------------------------------------------------------===//
  // Inputs
  //===--------------------------------------------------------------------===//

  /// Number of inputs, counting omitted optional ones ("").
  unsigned numInputs() const { return node().input_size(); }
  /// True when input `i` is present (not omitted).
  bool hasInput(unsigned i) const {
    return static_cast<int>(i) < node().input_size() &&
           !node().input(i).empty();
  }
  /// Input `i` as an SSA value, materialising a known constant if needed.
  /// Fails with a diagnostic when it is missing.
  FailureOr<Value> input(unsigned i);
  /// Input `i` if present, a null value if omitted; fails like input().
  FailureOr<Value> optionalInput(unsigned i) {
    return hasInput(i) ? input(i) : FailureOr<Value>(Value());
  }
  /// The tensor type of input `i`; fails with input()'s diagnostic when it
  /// is missing.
  FailureOr<RankedTensorType> requiredInputType(unsigned i);
  /// The tensor type of input `i` (null when missing).
  RankedTensorType inputType(unsigned i);
  /// The known integer value of input `i`, if it is known at import time:
  /// tracked by the KnownInts folders or computed by IR that folds
  /// (evaluateConstant).
  const KnownInts *knownInput(unsigned i) const;
  /// The value of `v` when the tandem ops computing it fold to a constant
  /// (their folders evaluate small constants), or null.
  Attribute evaluateConstant(Value v) const;
  /// The same with the folders computing results of up to
  /// kMaxConstantIndexElements elements (not memoised).
  Attribute evaluateLargeConstant(Value v) const;
  /// The values of input `i`, which must be known at import time (or be
  /// a constant of up to kMaxConstantIndexElements integers); `what`
  /// names it in the diagnostic.
  FailureOr<std::vector<int64_t>> constantInts(unsigned i, StringRef what);
  /// True when `name` is a graph input without an initializer: a value the
  /// caller supplies at run time.
  bool isGraphInput(StringRef name) const;
  /// Appends to `diag` how to fix input `i` at compile time when it is a
  /// graph input (--bind-input).
  void addBindHint(InFlightDiagnostic &diag, unsigned i) const;
  /// The graph inputs (supplied at run time) that the ops computing `v`
  /// read, in the graph's input order.
  SmallVector<std::string> graphInputsBehind(Value v) const;
  /// A scalar float input known at import time (e.g. Clip's min/max).
  FailureOr<std::optional<double>> constantScalar(unsigned i, StringRef what);

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  const onnx::AttributeProto *attr(StringRef name) const;
  int64_t attrInt(StringRef name, int64_t dflt) const;
  float attrFloat(StringRef name, float dflt) const;
  std::string attrString(StringRef name, StringRef dflt) const;
  /// INTS attribute, or std::nullopt when absent.
  std::optional<std::vector<int64_t>> attrInts(StringRef name) const;

  //===--------------------------------------------------------------------===//
  // Outputs
  //===--------------------------------------------------------------------===//

  /// Binds output `i` of the node.
  void setOutput(unsigned i, Value value);
  /// Binds output `i` to a value known at import time.
  void setKnownOutput(unsigned i, KnownInts value);
  /// Fails when an output beyond the first `supported` is used.
  LogicalResult checkUnusedOutputs(unsigned supported);

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  /// Normalises a possibly negative ONNX axis for a tensor of `rank`.
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, StringRef what);
  /// Creates a one-result tandem op at the node's location and returns its
  /// result. When type inference rejects the operands (inconsistent shapes
  /// in the model) the op's diagnostic is emitted, the node is marked failed
  /// and a null value is returned; creating from a null operand is a silent
  /// no-op, so converters can chain creates and the failure surfaces once.
  template <typename OpT, typename... Args> Value create(Args &&...args) {
    OperationState state(nodeLoc, OpT::getOperationName());
    OpT::build(b, state, Type(NoneType::get(&ctx)),
               std::forward<Args>(args)...);
    if (llvm::any_of(state.operands, [](Value v) { return !v; })) {
      nodeFailed = true;
      return {};
    }
    SmallVector<Type, 1> types;
    if (failed(OpT::inferReturnTypes(
            &ctx, nodeLoc, state.operands, state.attributes.getDictionary(&ctx),
            state.getRawProperties(), state.regions, types))) {
      nodeFailed = true;
      return {};
    }
    if (failed(checkResultSize(OpT::getOperationName(), types.front()))) {
      nodeFailed = true;
      return {};
    }
    state.types.assign(types.begin(), types.end());
    return b.create(state)->getResult(0);
  }
  /// Fails with a diagnostic when a result would have more elements than the
  /// importer accepts (or an overflowing count).
  LogicalResult checkResultSize(StringRef opName, Type type);
  /// Like constantInts, for values used as dims, pads or sizes: each must lie
  /// within +-2^31.
  FailureOr<std::vector<int64_t>> constantDims(unsigned i, StringRef what);
  /// True once a create() for the current node failed.
  bool failedNode() const { return nodeFailed; }
  /// A scalar constant of `elementType` (rank 0), broadcastable anywhere.
  Value scalarConstant(Type elementType, double value);
  /// A constant tensor of `shape` and float type `elementType` holding
  /// `values` (rounded to nearest, ties to even).
  Value floatConstant(ArrayRef<int64_t> shape, Type elementType,
                      ArrayRef<double> values);
  /// Materialises a known integer tensor as a tandem.constant.
  Value materialize(const KnownInts &known);
  /// Builds an elements attribute for an ONNX tensor, as dense_resource when
  /// large; fails with a diagnostic naming `what`.
  /// With `takeRaw` (the tensor's own raw_data field), the attribute takes
  /// over the raw bytes instead of copying them, leaving the field empty.
  FailureOr<ElementsAttr> tensorAttr(const onnx::TensorProto &tensor,
                                     StringRef what,
                                     std::string *takeRaw = nullptr);
  /// A tensor imported so far: an SSA value or known integers.
  struct Tensor {
    Value value;
    std::optional<KnownInts> known;
  };
  /// The tensor named `name`, if one is defined.
  std::optional<Tensor> lookupTensor(StringRef name) const;
  /// Defines (or redefines) `name`, e.g. a Loop body's input per iteration.
  void defineTensor(StringRef name, const Tensor &tensor);
  /// Binds output `i` of the current node to `tensor`.
  void setOutputTensor(unsigned i, const Tensor &tensor);
  /// `tensor` as an SSA value.
  Value materializeTensor(const Tensor &tensor);
  /// Imports the initializers and nodes of `graph` (an If branch or a Loop
  /// body) inline, in the current scope; node names get `namePrefix`. The
  /// current node is restored afterwards.
  LogicalResult importSubgraph(const onnx::GraphProto &graph,
                               StringRef namePrefix);

  /// Maps an ONNX element type to an MLIR type, or null if unsupported.
  Type elementType(int32_t onnxType);
  /// Decodes an integer/bool tensor to known values (small tensors only).
  std::optional<KnownInts> knownFromTensor(const onnx::TensorProto &tensor);

private:
  LogicalResult importInputs(func::FuncOp &func);
  /// Imports the initializers of `graph`; with `owned` (`graph` itself,
  /// mutable), their raw data moves into the weights instead of being
  /// copied.
  LogicalResult importInitializers(const onnx::GraphProto &graph,
                                   onnx::GraphProto *owned = nullptr);
  LogicalResult importNodes(const onnx::GraphProto &graph,
                            StringRef namePrefix);
  LogicalResult checkSupported(const ConverterMap &converters);
  FailureOr<std::string> tensorBytes(const onnx::TensorProto &tensor,
                                     Type elementType, int64_t count,
                                     StringRef what,
                                     std::string *takeRaw = nullptr);
  Location fileLoc() const;
  /// Input `i` evaluated by evaluateConstant as known integers, or null.
  const KnownInts *evaluatedInput(unsigned i) const;

  MLIRContext &ctx;
  onnx::ModelProto &model;
  std::string path;
  const OnnxImportOptions &options;
  OpBuilder b;
  int64_t opsetVersion = 0;
  const onnx::NodeProto *currentNode = nullptr;
  bool nodeFailed = false;
  /// The current node's name, or "<OpType>_<index>" for unnamed nodes.
  std::string nodeName;
  Location nodeLoc;
  const ConverterMap *convertersInUse = nullptr;
  /// Tensors imported as SSA values.
  llvm::StringMap<Value> values;
  /// Tensors known at import time.
  llvm::StringMap<KnownInts> known;
  /// evaluateConstant's results, and evaluatedInput's as KnownInts (values,
  /// not names: a Loop body redefines its names each iteration).
  mutable DenseMap<Value, Attribute> evaluationMemo;
  mutable DenseMap<Value, std::unique_ptr<KnownInts>> evaluated;
};

/// Binds output 0 of the current two-input node: folded by `fold` when both
/// inputs are known integers (and `fold` is given and folds), else
/// OpT(input 0, input 1). Element types are the caller's to check.
template <typename OpT>
LogicalResult foldOrCreateBinary(
    GraphImporter &im,
    function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fold = nullptr) {
  const KnownInts *a = im.knownInput(0), *b = im.knownInput(1);
  if (fold && a && b)
    if (std::optional<KnownInts> r = foldKnown({a, b}, a->elementType, fold)) {
      im.setKnownOutput(0, std::move(*r));
      return success();
    }
  FailureOr<Value> lhs = im.input(0), rhs = im.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  im.setOutput(0, im.template create<OpT>(*lhs, *rhs));
  return success();
}

template <typename OpT> FailureOr<Value> chainInputs(GraphImporter &im) {
  FailureOr<Value> acc = im.input(0);
  if (failed(acc))
    return failure();
  for (unsigned i = 1; i < im.numInputs(); ++i) {
    if (failed(checkSameElementType(im, 0, i)))
      return failure();
    FailureOr<Value> next = im.input(i);
    if (failed(next))
      return failure();
    acc = Value(im.template create<OpT>(*acc, *next));
  }
  return acc;
}

} // namespace mlir::tandem::onnx_import

#endif // TANDEM_COMPILER_IMPORT_GRAPHIMPORTER_H
