//===- TandemOps.td - tandem graph ops ---------------------*- tablegen -*-===//
//
// The ops of the tandem dialect: producers and shape ops, compute, elementwise,
// pooling and normalisation, reductions, and the structural fusion/transfer
// ops.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_OPS_TD
#define TANDEM_OPS_TD

include "dialects/Tandem/IR/TandemAttrs.td"
include "dialects/Tandem/IR/TandemInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Traits and type constraints
//===----------------------------------------------------------------------===//

class Tandem_NativeOpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::tandem::OpTrait";
}

/// Rejects dynamic dimensions in operand and result types.
def Tandem_StaticShapes : Tandem_NativeOpTrait<"StaticShapes">;
/// Runs the op's shape inference with diagnostics before the generic
/// InferTypeOpInterface check, so users see the precise shape error.
def Tandem_ShapeChecked : Tandem_NativeOpTrait<"ShapeChecked">;
/// Marks ops that compute each output element from the corresponding
/// (broadcast) input elements. Fusion reads it.
def Tandem_Elementwise : Tandem_NativeOpTrait<"Elementwise">;
/// Marks ops whose tensor operands broadcast like NumPy.
def Tandem_Broadcasting : Tandem_NativeOpTrait<"NumpyBroadcasting">;

class Tandem_ParamNativeOpTrait<string name, string params>
    : ParamNativeOpTrait<name, params> {
  let cppNamespace = "::mlir::tandem::OpTrait";
}

// Fusion roles (docs/Fusion.md). Every op declares exactly one, and
// test/unit/OpPropertiesTest.cpp checks it: the `Elementwise` trait stands
// for the elementwise role; `Tandem_ElementwiseRole` gives that role to an op
// that is not elementwise in the strict sense. Ops of other dialects are
// barriers.

/// A dense contraction: the root of an output fusion, run at a device's
/// matrix peak.
def Tandem_MatrixRole : Tandem_NativeOpTrait<"MatrixRole">;
/// A reduction: the root of an input fusion.
def Tandem_ReductionRole : Tandem_NativeOpTrait<"ReductionRole">;
/// Elementwise to fusion (a loop body or a matrix epilogue) without the
/// `Elementwise` trait, like batch_norm's per-channel affine.
def Tandem_ElementwiseRole : Tandem_NativeOpTrait<"ElementwiseRole">;
/// Data movement that fits in a loop nest.
def Tandem_LayoutRole : Tandem_NativeOpTrait<"LayoutRole">;
/// A loop op that reads each input element several times: no producer is
/// fused into it.
def Tandem_WindowRole : Tandem_NativeOpTrait<"WindowRole">;
/// Never fused.
def Tandem_BarrierRole : Tandem_NativeOpTrait<"BarrierRole">;

/// An elementwise op whose cost is dominated by a transcendental function:
/// fusion does not duplicate it into several consumers.
def Tandem_Transcendental : Tandem_NativeOpTrait<"Transcendental">;

// Costs (Tandem_CostOpInterface in TandemInterfaces.td). Every op has exactly
// one of: `Tandem_FlopsPerElement<N>` (elementwise ops), `Tandem_DataMovement`,
// its own `getFlops` (DeclareOpInterfaceMethods<Tandem_CostOpInterface>, in
// TandemOpCosts.cpp) or `Tandem_ZeroCost`.

/// Marks ops whose cost comes from `Tandem_FlopsPerElement`.
def Tandem_PerElementCost : Tandem_NativeOpTrait<"PerElementCost">;
/// The cost of an elementwise op: `n` arithmetic operations per result
/// element.
class Tandem_FlopsPerElement<int n> : TraitList<[Tandem_CostOpInterface,
    Tandem_PerElementCost,
    Tandem_ParamNativeOpTrait<"FlopsPerElement", !cast<string>(n)>]>;
/// The cost of an op that only moves or converts elements: no arithmetic,
/// only the bytes it reads and writes.
def Tandem_DataMovement : TraitList<[Tandem_CostOpInterface,
    Tandem_NativeOpTrait<"DataMovement">]>;
/// An op with a cost formula of its own (TandemOpCosts.cpp).
defvar Tandem_CostFormula = DeclareOpInterfaceMethods<Tandem_CostOpInterface>;
/// Marks ops that run no kernel and move no data (constants, reshapes,
/// terminators): they cost nothing.
def Tandem_ZeroCost : Tandem_NativeOpTrait<"ZeroCost">;

// Element types. Signed integers are signless (`i8` ... `i64`), unsigned
// ones are `ui8` ... `ui64`: the tandem dialect keeps the signedness that
// ONNX gives a tensor, and tandem-lower-to-linalg picks the unsigned arith
// ops from it before it makes every type signless (see the dialect
// description in TandemDialect.td).
defvar Tandem_FloatTypes = [F64, F32, F16, BF16];
defvar Tandem_IntTypes = [I64, I32, I16, I8, UI64, UI32, UI16, UI8];

def Tandem_FloatTensor : RankedTensorOf<Tandem_FloatTypes>;
// conv2d and matmul also take i32 (the importer's MatMulInteger, ConvInteger
// and QLinear* ops: int8 data widened to i32, exact i32 accumulation).
def Tandem_ContractionTensor
    : RankedTensorOf<!listconcat(Tandem_FloatTypes, [I32])>;
// matmul also takes i64 (ONNX MatMul and Einsum on int64, accumulating in
// i64).
def Tandem_MatmulTensor
    : RankedTensorOf<!listconcat(Tandem_FloatTypes, [I32, I64])>;
def Tandem_NumericTensor
    : RankedTensorOf<!listconcat(Tandem_FloatTypes, Tandem_IntTypes)>;
def Tandem_AnyTensor
    : RankedTensorOf<!listconcat(Tandem_FloatTypes, Tandem_IntTypes, [I1])>;
def Tandem_IndexTensor : RankedTensorOf<[I64, I32]>;
def Tandem_IntTensor : RankedTensorOf<Tandem_IntTypes>;
def Tandem_BoolTensor : RankedTensorOf<[I1]>;
def Tandem_IntOrBoolTensor : RankedTensorOf<!listconcat(Tandem_IntTypes, [I1])>;

def Tandem_ElementType : TypeAttrOf<AnyTypeOf<
    !listconcat(Tandem_FloatTypes, Tandem_IntTypes, [I1])>>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Tandem_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tandem_Dialect, mnemonic, !listconcat([Tandem_StaticShapes], traits)>;

/// An op whose result types are inferred from its operands and attributes.
/// The C++ class defines `inferReturnTypes(ctx, loc, adaptor, types)`, which
/// emits a located diagnostic when a location is given.
class Tandem_InferredOp<string mnemonic, list<Trait> traits = []>
    : Tandem_Op<mnemonic,
                !listconcat(traits, [Tandem_ShapeChecked, InferTypeOpAdaptor])>;

/// One tensor in, the same tensor type out, `flops` arithmetic operations
/// per element.
class Tandem_UnaryElementwiseOp<string mnemonic, Type tensorType,
                                list<Trait> traits = [], int flops = 1>
    : Tandem_InferredOp<mnemonic, !listconcat([Pure, Tandem_Elementwise,
                                               Tandem_FlopsPerElement<flops>,
                                               SameOperandsAndResultElementType],
                                              traits)> {
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(adaptor.getInput().getType());
      return ::mlir::success();
    }
  }];
}

/// Two tensors in with NumPy broadcasting, same element type out, `flops`
/// arithmetic operations per element.
class Tandem_BinaryElementwiseOp<string mnemonic, Type tensorType,
                                 list<Trait> traits = [], int flops = 1>
    : Tandem_InferredOp<mnemonic, !listconcat([Pure, Tandem_Elementwise,
        Tandem_FlopsPerElement<flops>, Tandem_Broadcasting,
        AllElementTypesMatch<["lhs", "rhs", "output"]>], traits)> {
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tandem::inferBroadcastResultType(
          loc, getOperationName(), {adaptor.getLhs(), adaptor.getRhs()},
          /*elementType=*/nullptr, types);
    }
  }];
}

/// A reduction over `axes`, optionally keeping the reduced dims as size 1.
class Tandem_ReduceOp<string mnemonic>
    : Tandem_InferredOp<mnemonic, [Pure, Tandem_ReductionRole,
                                   Tandem_CostFormula,
                                   SameOperandsAndResultElementType]> {
  let arguments = (ins Tandem_NumericTensor:$input,
                       DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Tandem_NumericTensor:$output);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tandem::inferReduceResultType(
          loc, getOperationName(), adaptor.getInput(), adaptor.getAxes(),
          adaptor.getKeepdims(), types);
    }
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Producers and shape ops
//===----------------------------------------------------------------------===//

def Tandem_ConstantOp : Tandem_InferredOp<"constant",
    [ConstantLike, Pure, Tandem_BarrierRole, Tandem_ZeroCost]> {
  let summary = "a constant tensor";
  let description = [{
    Produces a constant tensor. Small values are inline `dense<...>`
    attributes; weights are `dense_resource` blobs, so IR dumps stay readable
    however large the model is.

    Example:

    ```mlir
    %0 = tandem.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %w = tandem.constant dense_resource<conv1_weight> : tensor<64x3x7x7xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Tandem_ReshapeOp : Tandem_InferredOp<"reshape",
    [Pure, Tandem_LayoutRole, Tandem_ZeroCost,
     SameOperandsAndResultElementType]> {
  let summary = "reinterprets a tensor with a new static shape";
  let description = [{
    Returns `input` with the static shape `shape`. The element count must not
    change. Unlike ONNX `Reshape`, `shape` holds no `-1` or `0` placeholders:
    the importer resolves them.

    Example:

    ```mlir
    %1 = tandem.reshape %0 {shape = array<i64: 1, 512>}
        : tensor<1x512x1x1xf32> -> tensor<1x512xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Tandem_TransposeOp : Tandem_InferredOp<"transpose",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement,
     SameOperandsAndResultElementType]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`. `perm` must be a
    permutation of `[0, rank)`.

    Canonicalisation composes transposes of transposes, makes one that
    moves only size-1 dimensions a reshape, and splits one read only by
    gathers of one constant index each (`q, k, v = qkv[0], qkv[1],
    qkv[2]` after a head split) and slices (`qkv.unbind(0)`) into a
    transpose of each gathered or sliced part, taken before the transpose.
    In GPU partitions it lowers to a
    `linalg.generic`, which fuses with its elementwise neighbours.

    Example:

    ```mlir
    %1 = tandem.transpose %0 {perm = array<i64: 0, 2, 1>}
        : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tandem_ConcatOp : Tandem_InferredOp<"concat",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement,
     SameOperandsAndResultElementType]> {
  let summary = "concatenates tensors along an axis";
  let description = [{
    All inputs have the same rank and agree on every dimension but `axis`.

    Example:

    ```mlir
    %2 = tandem.concat %0, %1 {axis = 1 : i64}
        : (tensor<1x16x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x48x8x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Tandem_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasFolder = 1;
}

def Tandem_SliceOp : Tandem_InferredOp<"slice",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement,
     SameOperandsAndResultElementType]> {
  let summary = "extracts a strided slice";
  let description = [{
    For every dimension `d`, takes elements `starts[d], starts[d] + steps[d],
    ...` below `limits[d]`, with `0 <= starts[d] <= limits[d] <= dim(d)` and
    `steps[d] >= 1`. The importer normalises ONNX's negative and clamped
    indices into this form.

    Example:

    ```mlir
    %1 = tandem.slice %0 {starts = array<i64: 0, 2>, limits = array<i64: 4, 8>,
                          steps = array<i64: 1, 2>}
        : tensor<4x8xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Tandem_PadOp : Tandem_InferredOp<"pad",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement,
     SameOperandsAndResultElementType]> {
  let summary = "pads a tensor";
  let description = [{
    Adds `pads_low[d]` elements before and `pads_high[d]` after dimension `d`.
    `mode` is `constant` (filled with `value`), `reflect`, `edge` or `wrap`
    (the opposite end's elements, cyclically), as in ONNX `Pad`. Pads are
    non-negative.

    Example:

    ```mlir
    %1 = tandem.pad %0 {pads_low = array<i64: 0, 0, 1, 1>,
                        pads_high = array<i64: 0, 0, 1, 1>}
        : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$input,
                       DenseI64ArrayAttr:$pads_low,
                       DenseI64ArrayAttr:$pads_high,
                       DefaultValuedAttr<Tandem_PadModeAttr,
                                         "PadMode::Constant">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Tandem_GatherOp : Tandem_InferredOp<"gather",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement]> {
  let summary = "gathers slices along an axis by index";
  let description = [{
    ONNX `Gather`: the result shape is
    `data.shape[:axis] ++ indices.shape ++ data.shape[axis+1:]`. Negative
    indices count from the end of `axis`.

    Example:

    ```mlir
    %1 = tandem.gather %table, %ids {axis = 0 : i64}
        : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$data, Tandem_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat =
      "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tandem_GatherElementsOp : Tandem_InferredOp<"gather_elements",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement]> {
  let summary = "gathers single elements along an axis by index";
  let description = [{
    ONNX `GatherElements`: `indices` has the rank of `data`, and the result
    has the shape of `indices`; element `(i0, ..., ik, ...)` (with `ik` on
    `axis`) is `data[i0, ..., indices[i0, ..., ik, ...], ...]`. Outside
    `axis`, every dim of `indices` is at most that of `data`. Negative
    indices count from the end of `axis`; out-of-range ones are a run-time
    error on the CPU (docs/ErrorHandling.md) and read a clamped element in
    GPU partitions.

    Example:

    ```mlir
    %1 = tandem.gather_elements %data, %ids {axis = 1 : i64}
        : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$data, Tandem_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat =
      "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tandem_GatherNDOp : Tandem_InferredOp<"gather_nd",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement]> {
  let summary = "gathers slices by index tuples";
  let description = [{
    ONNX `GatherND`: the last dim of `indices` (size m) holds index tuples
    into dims `batch_dims .. batch_dims + m - 1` of `data`; the first
    `batch_dims` dims of both are batch dims and must be equal. The result
    shape is `indices.shape[:-1] ++ data.shape[batch_dims + m:]`. Negative
    indices count from the end of their dim; out-of-range ones are a
    run-time error on the CPU and read a clamped element in GPU partitions.

    Example:

    ```mlir
    %1 = tandem.gather_nd %data, %ids {batch_dims = 1 : i64}
        : (tensor<2x5x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$data, Tandem_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat =
      "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tandem_CastOp : Tandem_InferredOp<"cast",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement,
     SameOperandsAndResultShape]> {
  let summary = "converts the element type";
  let description = [{
    Converts every element to the element type `to`, as ONNX `Cast` does
    (float to int truncates toward zero; anything to `i1` compares with zero).

    Example:

    ```mlir
    %1 = tandem.cast %0 {to = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$input, Tandem_ElementType:$to);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Tandem_BroadcastToOp : Tandem_InferredOp<"broadcast_to",
    [Pure, Tandem_LayoutRole, Tandem_DataMovement,
     SameOperandsAndResultElementType]> {
  let summary = "broadcasts a tensor to a shape";
  let description = [{
    NumPy broadcast of `input` to `shape`: `input`'s dims align to the right
    and each must be 1 or equal to the target dim. This is ONNX `Expand` with
    a static target.

    Example:

    ```mlir
    %1 = tandem.broadcast_to %0 {shape = array<i64: 4, 3>}
        : tensor<3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tandem_AnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tandem_Conv2DOp : Tandem_InferredOp<"conv2d",
    [Pure, Tandem_MatrixRole, Tandem_CostFormula,
     AllElementTypesMatch<["input", "filter", "output"]>]> {
  let summary = "2-D convolution, NCHW input and OIHW filter (or NHWC and OHWI)";
  let description = [{
    Convolves `input` (N x C x H x W) with `filter` (O x C/groups x KH x KW)
    and adds the optional `bias` (O). `strides` and `dilations` have two
    entries (H, W); `pads` has four, in ONNX order
    `[top, left, bottom, right]`. `groups` divides both C and O; depthwise
    convolution has `groups == C`. Float types, or i32 (exact integer
    accumulation, wrapping like onnxruntime's int32 kernels; integer
    convolutions run on the CPU).

    `layout = "NHWC"` (default `"NCHW"`) orders the channels last: `input`
    is N x H x W x C, `filter` O x KH x KW x C/groups and the result
    N x OH x OW x O. The importer always writes NCHW;
    `tandem-assign-gpu-layout` picks NHWC for the convolutions of GPU
    partitions whose library kernels prefer it.

    Each output spatial size is
    `(in + pad_begin + pad_end - dilation * (k - 1) - 1) / stride + 1`
    and must be positive.

    Example:

    ```mlir
    %y = tandem.conv2d %x, %w, %b {strides = array<i64: 2, 2>,
            pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>,
            groups = 1 : i64}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
          -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Tandem_ContractionTensor:$input,
                       Tandem_ContractionTensor:$filter,
                       Optional<Tandem_ContractionTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<StrAttr, "\"NCHW\"">:$layout);
  let results = (outs Tandem_ContractionTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// Whether the channels come last (`layout = "NHWC"`).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
    /// The channel dimension of the input and the result (1 or 3).
    int64_t getChannelDim() { return isChannelsLast() ? 3 : 1; }
    /// The first of the two spatial dimensions of the input, the filter
    /// and the result (2 or 1).
    int64_t getSpatialDim() { return isChannelsLast() ? 1 : 2; }
  }];
}

def Tandem_MatmulOp : Tandem_InferredOp<"matmul",
    [Pure, Tandem_MatrixRole, Tandem_CostFormula,
     AllElementTypesMatch<["lhs", "rhs", "output"]>]> {
  let summary = "batched matrix product with broadcasting batch dims";
  let description = [{
    `lhs` is `[..., M, K]` and `rhs` is `[..., K, N]`; the leading batch
    dimensions broadcast like NumPy, giving `[..., M, N]`. Both operands have
    rank 2 or more (the importer reshapes ONNX's 1-D MatMul operands).
    Float types, or i32 or i64 (exact integer accumulation, wrapping;
    integer matmuls run on the CPU).

    Example:

    ```mlir
    %y = tandem.matmul %q, %k
        : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>)
          -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Tandem_MatmulTensor:$lhs, Tandem_MatmulTensor:$rhs);
  let results = (outs Tandem_MatmulTensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tandem_GemmOp : Tandem_InferredOp<"gemm",
    [Pure, Tandem_MatrixRole, Tandem_CostFormula,
     AllElementTypesMatch<["a", "b", "output"]>]> {
  let summary = "ONNX Gemm: alpha * op(A) * op(B) + beta * C";
  let description = [{
    `op(X)` is `X` or its transpose as `trans_a` / `trans_b` say. `A` and `B`
    are 2-D; the optional `c` broadcasts to the `[M, N]` result.

    Example:

    ```mlir
    %y = tandem.gemm %x, %w, %b {trans_b = true}
        : (tensor<1x512xf32>, tensor<1000x512xf32>, tensor<1000xf32>)
          -> tensor<1x1000xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$a, Tandem_FloatTensor:$b,
                       Optional<Tandem_FloatTensor>:$c,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b,
                       DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0f">:$beta);
  let results = (outs Tandem_FloatTensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Tandem_BiasAddOp : Tandem_InferredOp<"bias_add",
    [Pure, Tandem_Elementwise, Tandem_FlopsPerElement<1>,
     AllElementTypesMatch<["input", "bias", "output"]>]> {
  let summary = "adds a 1-D bias along one axis";
  let description = [{
    Adds `bias[i]` to every element whose index along `axis` is `i`. `bias`
    is 1-D with `dim(axis)` elements. `axis` is 1 (channels) for NCHW
    activations and the last axis for matmul results.

    Example:

    ```mlir
    %y = tandem.bias_add %x, %b {axis = 1 : i64}
        : (tensor<1x64x56x56xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input, Tandem_FloatTensor:$bias,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Tandem_FloatTensor:$output);
  let assemblyFormat =
      "$input `,` $bias attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Tandem_AddOp : Tandem_BinaryElementwiseOp<"add", Tandem_NumericTensor,
                                              [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    Example:

    ```mlir
    %2 = tandem.add %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tandem_SubOp : Tandem_BinaryElementwiseOp<"sub", Tandem_NumericTensor> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    Example:

    ```mlir
    %2 = tandem.sub %0, %1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tandem_MulOp : Tandem_BinaryElementwiseOp<"mul", Tandem_NumericTensor,
                                              [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    Example:

    ```mlir
    %2 = tandem.mul %0, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tandem_DivOp : Tandem_BinaryElementwiseOp<"div", Tandem_NumericTensor,
                                              [], /*flops=*/4> {
  let summary = "elementwise division with broadcasting";
  let description = [{
    Integer division truncates toward zero, as in ONNX `Div`.

    Example:

    ```mlir
    %2 = tandem.div %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tandem_PowOp : Tandem_BinaryElementwiseOp<"pow", Tandem_FloatTensor,
                                              [Tandem_Transcendental],
                                              /*flops=*/12> {
  let summary = "elementwise power with broadcasting";
  let description = [{
    C `pow` semantics, as onnxruntime computes ONNX `Pow`: a negative base
    with an integer-valued exponent is defined (`(-2)^3 = -8`,
    `(-2)^-1 = -0.5`), `x^0 = 1` for every `x` (NaN included),
    `0^-1 = inf`, and a negative base with a non-integer exponent is NaN.
    Canonicalisation turns a constant exponent of 2 or 3 into
    multiplications (onnxruntime does the same).

    Example:

    ```mlir
    %2 = tandem.pow %0, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let hasCanonicalizer = 1;
}

def Tandem_MaxOp : Tandem_BinaryElementwiseOp<"max", Tandem_NumericTensor,
                                              [Commutative]> {
  let summary = "elementwise maximum with broadcasting";
  let description = [{
    Example:

    ```mlir
    %2 = tandem.max %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tandem_MinOp : Tandem_BinaryElementwiseOp<"min", Tandem_NumericTensor,
                                              [Commutative]> {
  let summary = "elementwise minimum with broadcasting";
  let description = [{
    Example:

    ```mlir
    %2 = tandem.min %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tandem_ModOp : Tandem_BinaryElementwiseOp<"mod", Tandem_NumericTensor,
                                              [], /*flops=*/4> {
  let summary = "elementwise remainder with broadcasting";
  let description = [{
    ONNX `Mod`. With `fmod = true` the remainder takes the sign of the
    dividend, as C `fmod` (floats) or `%` (integers) do; with `fmod = false`
    (integers only, as ONNX requires) it takes the sign of the divisor, as
    Python's `%` does. An integer remainder by zero is 0 (ONNX leaves it
    undefined; this never traps).

    Example:

    ```mlir
    %2 = tandem.mod %0, %1 : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
    %3 = tandem.mod %a, %b {fmod = true}
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Tandem_NumericTensor:$lhs, Tandem_NumericTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
  let hasVerifier = 1;
}

class Tandem_DocBitwiseOp<string mnemonic, string what, list<Trait> traits = []>
    : Tandem_BinaryElementwiseOp<mnemonic, Tandem_IntOrBoolTensor, traits> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = "Bitwise " # what # " of integers; on `i1` it is the " #
    "logical " # what # " (ONNX `" # !toupper(!substr(mnemonic, 0, 1)) #
    !substr(mnemonic, 1) # "` and `Bitwise" #
    !toupper(!substr(mnemonic, 0, 1)) # !substr(mnemonic, 1) # "`; `Not` " #
    "and `BitwiseNot` are `xor` with all ones).\n\nExample:\n\n```mlir\n" #
    "%2 = tandem." # mnemonic #
    " %0, %1 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>\n```";
}

def Tandem_AndOp : Tandem_DocBitwiseOp<"and", "and", [Commutative]>;
def Tandem_OrOp : Tandem_DocBitwiseOp<"or", "or", [Commutative]>;
def Tandem_XorOp : Tandem_DocBitwiseOp<"xor", "xor", [Commutative]>;

class Tandem_ShiftOp<string mnemonic, string direction>
    : Tandem_BinaryElementwiseOp<mnemonic, Tandem_IntTensor> {
  let summary = "elementwise logical shift " # direction # " with broadcasting";
  let description = "Shifts the bits of each `lhs` element " # direction #
    " by the `rhs` element, filling with zeros (ONNX `BitShift` with " #
    "`direction = \"" # !toupper(direction) # "\"`, defined on unsigned " #
    "integers: the bits are shifted as unsigned). A shift amount outside " #
    "`[0, bit width)` gives 0.\n\nExample:\n\n```mlir\n%2 = tandem." #
    mnemonic # " %0, %1 : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>\n```";
}

def Tandem_ShiftLeftOp : Tandem_ShiftOp<"shift_left", "left">;
def Tandem_ShiftRightOp : Tandem_ShiftOp<"shift_right", "right">;

def Tandem_CmpOp : Tandem_InferredOp<"cmp",
    [Pure, Tandem_Elementwise, Tandem_FlopsPerElement<1>, Tandem_Broadcasting,
     AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares with `predicate` (`eq`, `ne`, `lt`, `le`, `gt`, `ge`) and
    returns an `i1` tensor of the broadcast shape. It covers ONNX `Equal`,
    `Less`, `Greater` and their `OrEqual` forms.

    Example:

    ```mlir
    %m = tandem.cmp lt, %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Tandem_CmpPredicateAttr:$predicate,
                       Tandem_AnyTensor:$lhs, Tandem_AnyTensor:$rhs);
  let results = (outs Tandem_BoolTensor:$output);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];  let hasFolder = 1;
}

def Tandem_WhereOp : Tandem_InferredOp<"where",
    [Pure, Tandem_Elementwise, Tandem_FlopsPerElement<2>, Tandem_Broadcasting,
     AllElementTypesMatch<["on_true", "on_false", "output"]>]> {
  let summary = "selects elements by a condition, with broadcasting";
  let description = [{
    `output[i] = condition[i] ? on_true[i] : on_false[i]`, with all three
    operands broadcast together like NumPy (ONNX `Where`).

    Example:

    ```mlir
    %y = tandem.where %mask, %x, %ninf
        : (tensor<1x1x128x128xi1>, tensor<1x12x128x128xf32>, tensor<f32>)
          -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Tandem_BoolTensor:$condition, Tandem_AnyTensor:$on_true,
                       Tandem_AnyTensor:$on_false);
  let results = (outs Tandem_AnyTensor:$output);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    functional-type(operands, results)
  }];  let hasFolder = 1;
}

class Tandem_DocUnaryOp<string mnemonic, Type t, string formula,
                        list<Trait> traits = [], int flops = 1>
    : Tandem_UnaryElementwiseOp<mnemonic, t, traits, flops> {
  let summary = "elementwise " # formula;
  let description = "Computes `" # formula # "` for every element.\n\n" #
    "Example:\n\n```mlir\n%1 = tandem." # mnemonic #
    " %0 : tensor<2x3xf32>\n```";
}

/// A float unary op computing a transcendental function: a polynomial
/// evaluation of about a dozen operations unless `flops` says otherwise.
class Tandem_TranscendentalOp<string mnemonic, string formula, int flops = 12>
    : Tandem_DocUnaryOp<mnemonic, Tandem_FloatTensor, formula,
                        [Tandem_Transcendental], flops> {
  let hasFolder = 1;
}

def Tandem_ReluOp : Tandem_DocUnaryOp<"relu", Tandem_NumericTensor,
                                      "max(x, 0)"> { let hasFolder = 1; }
def Tandem_SigmoidOp : Tandem_TranscendentalOp<"sigmoid", "1 / (1 + exp(-x))",
                                               /*flops=*/14>;
def Tandem_TanhOp : Tandem_TranscendentalOp<"tanh", "tanh(x)">;
def Tandem_ExpOp : Tandem_TranscendentalOp<"exp", "exp(x)">;
def Tandem_LogOp : Tandem_TranscendentalOp<"log", "log(x)">;
def Tandem_SqrtOp : Tandem_TranscendentalOp<"sqrt", "sqrt(x)", /*flops=*/4>;
def Tandem_RsqrtOp : Tandem_TranscendentalOp<"rsqrt", "1 / sqrt(x)",
                                             /*flops=*/4>;
def Tandem_ErfOp : Tandem_TranscendentalOp<"erf", "erf(x)">;
def Tandem_NegOp : Tandem_DocUnaryOp<"neg", Tandem_NumericTensor, "-x"> {
  let hasFolder = 1;
}
def Tandem_AbsOp : Tandem_DocUnaryOp<"abs", Tandem_NumericTensor, "|x|"> {
  let hasFolder = 1;
}

def Tandem_SinOp : Tandem_TranscendentalOp<"sin", "sin(x)">;
def Tandem_CosOp : Tandem_TranscendentalOp<"cos", "cos(x)">;
def Tandem_TanOp : Tandem_TranscendentalOp<"tan", "tan(x)">;
def Tandem_AsinOp : Tandem_TranscendentalOp<"asin", "asin(x)">;
def Tandem_AcosOp : Tandem_TranscendentalOp<"acos", "acos(x)">;
def Tandem_AtanOp : Tandem_TranscendentalOp<"atan", "atan(x)">;
def Tandem_SinhOp : Tandem_TranscendentalOp<"sinh", "sinh(x)">;
def Tandem_CoshOp : Tandem_TranscendentalOp<"cosh", "cosh(x)">;
def Tandem_AsinhOp : Tandem_TranscendentalOp<"asinh", "asinh(x)">;
def Tandem_AcoshOp : Tandem_TranscendentalOp<"acosh", "acosh(x)">;
def Tandem_AtanhOp : Tandem_TranscendentalOp<"atanh", "atanh(x)">;
def Tandem_FloorOp : Tandem_DocUnaryOp<"floor", Tandem_FloatTensor,
                                       "floor(x)"> { let hasFolder = 1; }
def Tandem_CeilOp : Tandem_DocUnaryOp<"ceil", Tandem_FloatTensor, "ceil(x)"> {
  let hasFolder = 1;
}
def Tandem_RoundOp : Tandem_UnaryElementwiseOp<"round", Tandem_FloatTensor> {
  let summary = "rounds to the nearest integer, halves to even";
  let description = [{
    ONNX `Round`: `round(2.5) = 2`, `round(-1.5) = -2`, `round(0.4) = 0`.
    Infinities, NaN and signed zeros are returned unchanged.

    Example:

    ```mlir
    %1 = tandem.round %0 : tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tandem_GeluOp : Tandem_UnaryElementwiseOp<"gelu", Tandem_FloatTensor,
                                              [Tandem_Transcendental],
                                              /*flops=*/18> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * 0.5 * (1 + erf(x / sqrt(2)))`, or with `approximate = tanh`
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    Example:

    ```mlir
    %1 = tandem.gelu %0 {approximate = #tandem.gelu_approximation<tanh>}
        : tensor<1x128x3072xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input,
                       DefaultValuedAttr<Tandem_GeluApproximationAttr,
                           "GeluApproximation::None">:$approximate);
  let hasFolder = 1;
}

def Tandem_ClipOp : Tandem_UnaryElementwiseOp<"clip", Tandem_NumericTensor,
                                              [], /*flops=*/2> {
  let summary = "clamps elements to [min, max]";
  let description = [{
    `min(max(x, min), max)`; an absent bound is unbounded. ReLU6 is
    `clip {min = 0.0, max = 6.0}`. `min` must not exceed `max`.

    Example:

    ```mlir
    %1 = tandem.clip %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x32x112x112xf32>
    ```
  }];
  let arguments = (ins Tandem_NumericTensor:$input, OptionalAttr<F32Attr>:$min,
                       OptionalAttr<F32Attr>:$max);
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

def Tandem_MaxPool2DOp : Tandem_InferredOp<"max_pool2d",
    [Pure, Tandem_WindowRole, Tandem_CostFormula,
     SameOperandsAndResultElementType]> {
  let summary = "2-D max pooling over NCHW (or NHWC)";
  let description = [{
    Takes the maximum over `kernel_shape` windows. `strides`, `dilations`
    and `kernel_shape` have two entries (H, W); `pads` has four
    (`[top, left, bottom, right]`). With `ceil_mode`, output sizes round up,
    but a window that would start inside the end padding is dropped (as in
    ONNX and PyTorch). Integer inputs (a uint8 image, say) pool too, with
    their signedness. `layout = "NHWC"` (default `"NCHW"`) puts the
    channels last, in the input and the result
    (`tandem-assign-gpu-layout` makes such pools on GPUs).

    Example:

    ```mlir
    %1 = tandem.max_pool2d %0 {kernel_shape = array<i64: 3, 3>,
            strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
            dilations = array<i64: 1, 1>}
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Tandem_NumericTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<StrAttr, "\"NCHW\"">:$layout);
  let results = (outs Tandem_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDeclaration = [{
    /// Whether the channels come last (`layout = "NHWC"`).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
  }];
}

def Tandem_AvgPool2DOp : Tandem_InferredOp<"avg_pool2d",
    [Pure, Tandem_WindowRole, Tandem_CostFormula,
     SameOperandsAndResultElementType]> {
  let summary = "2-D average pooling over NCHW (or NHWC)";
  let description = [{
    Averages over `kernel_shape` windows, as ONNX `AveragePool`. Padding
    elements are counted in the divisor only with `count_include_pad`; a
    `ceil_mode` window's overhang past the end padding never counts (as in
    onnxruntime and PyTorch). Attributes are laid out as for
    `tandem.max_pool2d` (`layout = "NHWC"` included); `dilations` may be
    omitted (no dilation), and a dilated window's divisor counts its taps,
    not its span.

    Example:

    ```mlir
    %1 = tandem.avg_pool2d %0 {kernel_shape = array<i64: 2, 2>,
            strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
        : tensor<1x64x56x56xf32> -> tensor<1x64x28x28xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                       DefaultValuedOptionalAttr<DenseI64ArrayAttr,
                                                 "{}">:$dilations,
                       DefaultValuedAttr<StrAttr, "\"NCHW\"">:$layout);
  let results = (outs Tandem_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDeclaration = [{
    /// Whether the channels come last (`layout = "NHWC"`).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
  }];
}

def Tandem_GlobalAvgPoolOp : Tandem_InferredOp<"global_avg_pool",
    [Pure, Tandem_ReductionRole, Tandem_CostFormula,
     SameOperandsAndResultElementType]> {
  let summary = "averages over all spatial dimensions";
  let description = [{
    For an `N x C x D1 x ... x Dk` input (rank 3 or more), returns
    `N x C x 1 x ... x 1`.

    Example:

    ```mlir
    %1 = tandem.global_avg_pool %0 : tensor<1x2048x7x7xf32> -> tensor<1x2048x1x1xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input);
  let results = (outs Tandem_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Tandem_BatchNormOp : Tandem_InferredOp<"batch_norm",
    [Pure, Tandem_ElementwiseRole, Tandem_FlopsPerElement<2>,
     AllElementTypesMatch<["input", "scale", "bias", "mean", "variance",
                                 "output"]>]> {
  let summary = "inference-mode batch normalisation";
  let description = [{
    `(x - mean[c]) / sqrt(variance[c] + epsilon) * scale[c] + bias[c]` with
    `c` the channel (dimension `axis`, 1 by default, as in ONNX) of an input
    of rank 2 or more. The four parameters are 1-D with C elements.
    `tandem-assign-gpu-layout` makes channels-last ones (`axis = 3` on
    NHWC), where a BatchNorm follows no convolution it could fold into (a
    DenseNet layer's, after its concat).

    Example:

    ```mlir
    %y = tandem.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input, Tandem_FloatTensor:$scale,
                       Tandem_FloatTensor:$bias, Tandem_FloatTensor:$mean,
                       Tandem_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Tandem_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tandem_LayerNormOp : Tandem_InferredOp<"layer_norm",
    [Pure, Tandem_ReductionRole, Tandem_CostFormula,
     SameOperandsAndResultElementType]> {
  let summary = "layer normalisation over the trailing dimensions";
  let description = [{
    Normalises over dimensions `[axis, rank)` to zero mean and unit variance
    (plus `epsilon`), then multiplies by `scale` and adds the optional
    `bias`. `scale` and `bias` have the shape of those trailing dimensions.

    Example:

    ```mlir
    %y = tandem.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-12 : f32}
        : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>)
          -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input, Tandem_FloatTensor:$scale,
                       Optional<Tandem_FloatTensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Tandem_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tandem_SoftmaxOp : Tandem_InferredOp<"softmax",
    [Pure, Tandem_ReductionRole, Tandem_CostFormula,
     SameOperandsAndResultElementType]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis`.

    Example:

    ```mlir
    %p = tandem.softmax %s {axis = 3 : i64}
        : tensor<1x12x128x128xf32> -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Tandem_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tandem_FloatTensor:$output);
  // The result type is spelled out: the parser must not infer types from
  // attributes it has not yet stored (a missing 'axis' then gets the
  // verifier's diagnostic instead).
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Tandem_ReduceSumOp : Tandem_ReduceOp<"reduce_sum"> {
  let summary = "sums over axes";
  let description = [{
    `axes` is non-empty, sorted, unique and in range. With `keepdims` (the
    default) reduced dimensions stay as size 1.

    Example:

    ```mlir
    %1 = tandem.reduce_sum %0 {axes = array<i64: 1>, keepdims = false}
        : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
}

def Tandem_ReduceMeanOp : Tandem_ReduceOp<"reduce_mean"> {
  let summary = "averages over axes";
  let description = [{
    Same conventions as `tandem.reduce_sum`.

    Example:

    ```mlir
    %1 = tandem.reduce_mean %0 {axes = array<i64: 2>}
        : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
    ```
  }];
}

def Tandem_ReduceMaxOp : Tandem_ReduceOp<"reduce_max"> {
  let summary = "maximum over axes";
  let description = [{
    Same conventions as `tandem.reduce_sum`.

    Example:

    ```mlir
    %1 = tandem.reduce_max %0 {axes = array<i64: 0, 1>, keepdims = false}
        : tensor<4x8xf32> -> tensor<f32>
    ```
  }];
}

def Tandem_ReduceMinOp : Tandem_ReduceOp<"reduce_min"> {
  let summary = "minimum over axes";
  let description = [{
    Same conventions as `tandem.reduce_sum`. A NaN in a float reduction makes
    the result NaN.

    Example:

    ```mlir
    %1 = tandem.reduce_min %0 {axes = array<i64: 1>}
        : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
}

def Tandem_ReduceProdOp : Tandem_ReduceOp<"reduce_prod"> {
  let summary = "product over axes";
  let description = [{
    Same conventions as `tandem.reduce_sum`. Integer products wrap around
    on overflow; 16-bit floats multiply in f32.

    Example:

    ```mlir
    %1 = tandem.reduce_prod %0 {axes = array<i64: 0>, keepdims = false}
        : tensor<4x8xi64> -> tensor<8xi64>
    ```
  }];
}

/// The index of the largest or smallest element along `axis`.
class Tandem_ArgReduceOp<string mnemonic, string what>
    : Tandem_InferredOp<mnemonic,
                        [Pure, Tandem_ReductionRole, Tandem_CostFormula]> {
  let summary = "index of the " # what # " element along an axis";
  let description = [{
    ONNX `Arg}] # !if(!eq(what, "largest"), "Max", "Min") # [{`: the result
    holds, as i64, the position along `axis` of the }] # what # [{ element;
    with `keepdims` (the default) the reduced dim stays as size 1. Ties give
    the first position, or the last with `select_last_index`. NaN follows
    onnxruntime: the elements are scanned in order and one replaces the
    current pick only when it compares strictly better (or equal, with
    `select_last_index`), so a NaN is picked only in the first position and
    then stays.

    Example:

    ```mlir
    %1 = tandem.}] # mnemonic # [{ %0 {axis = 1 : i64, keepdims = false}
        : tensor<4x10xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Tandem_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tandem::inferArgReduceResultType(
          loc, getOperationName(), adaptor.getInput(), adaptor.getAxis(),
          adaptor.getKeepdims(), types);
    }
  }];
  let hasFolder = 1;
}

def Tandem_ArgMaxOp : Tandem_ArgReduceOp<"arg_max", "largest">;
def Tandem_ArgMinOp : Tandem_ArgReduceOp<"arg_min", "smallest">;

def Tandem_TopKOp : Tandem_InferredOp<"top_k",
    [Pure, Tandem_WindowRole, Tandem_CostFormula]> {
  let summary = "the k largest or smallest elements along an axis";
  let description = [{
    ONNX `TopK` with a constant `k`: `values` holds the `k` largest (or,
    without `largest`, smallest) elements along `axis`, best first, and
    `indices` (i64) their positions; both have the input's shape with `axis`
    of size `k`. The order is onnxruntime's: NaN counts as larger than every
    number, and equal values keep their input order (lower index first).
    The result is always sorted, which `sorted = false` allows.

    Lowered as a rank computation (for each element, the number of elements
    before it in that order) and a pick of ranks `0..k-1`: O(n^2 + k n) work
    per row of length n, all of it parallel and GPU-mappable; meant for the
    sizes detection and sampling heads use, not for sorting long rows.

    Example:

    ```mlir
    %v, %i = tandem.top_k %0 {axis = 1 : i64, k = 5 : i64}
        : tensor<2x100xf32> -> tensor<2x5xf32>, tensor<2x5xi64>
    ```
  }];
  let arguments = (ins Tandem_NumericTensor:$input, I64Attr:$k, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Tandem_NumericTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
  let hasFolder = 1;
}

def Tandem_CumSumOp : Tandem_InferredOp<"cumsum",
    [Pure, Tandem_WindowRole, Tandem_CostFormula]> {
  let summary = "running sum along an axis";
  let description = [{
    ONNX `CumSum`: element `i` on `axis` is the sum of the elements `0..i`
    (`i..n-1` with `reverse`), leaving out element `i` itself with
    `exclusive`. Lowered as a masked reduction over the whole axis for each
    output element: O(n^2) work per row of length n, but every output is
    independent (parallel and GPU-mappable). 16-bit floats sum in f32.

    Example:

    ```mlir
    %1 = tandem.cumsum %0 {axis = 1 : i64, exclusive = true}
        : tensor<2x128xi64> -> tensor<2x128xi64>
    ```
  }];
  let arguments = (ins Tandem_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Tandem_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Structure: fusion regions and transfers
//===----------------------------------------------------------------------===//

def Tandem_FusionOp : Tandem_Op<"fusion",
    [IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects,
     Tandem_BarrierRole, Tandem_CostFormula]> {
  let summary = "a group of ops that codegen makes one kernel where it can";
  let description = [{
    Holds ops fused into one unit of code generation, meant to be one
    kernel (docs/Fusion.md says what codegen makes of it: on the GPU, a
    reduction-input fusion is still one kernel per reduction stage). The region is isolated from above: its block arguments stand for
    `inputs`, and `tandem.yield` returns the results. `kind` follows XLA's
    taxonomy:

    * `loop`: elementwise and broadcast ops in one loop nest;
    * `input`: a reduction root with its elementwise producers;
    * `output`: a conv/matmul/gemm root with its elementwise epilogue;
    * `multi_output`: a fusion returning several values.

    Only `multi_output` fusions may return more than one value. Unlike the
    other ops, the result types are written out rather than inferred: they
    are the types the body yields, and the verifier checks that. `name` is a
    readable name derived from the root node (e.g. `conv1_relu`), used by
    kernels, traces and reports alike.

    Example:

    ```mlir
    %y = tandem.fusion output "conv1_relu" (%x, %w, %b)
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
          -> tensor<1x4x6x6xf32> {
    ^bb0(%a: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
      %0 = tandem.conv2d %a, %f, %c {dilations = array<i64: 1, 1>,
              pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
          : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
            -> tensor<1x4x6x6xf32>
      %1 = tandem.relu %0 : tensor<1x4x6x6xf32>
      tandem.yield %1 : tensor<1x4x6x6xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Tandem_AnyTensor>:$inputs,
                       Tandem_FusionKindAttr:$kind, StrAttr:$name);
  let results = (outs Variadic<Tandem_AnyTensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind $name `(` $inputs `)` attr-dict `:`
    functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
  }];
}

def Tandem_YieldOp : Tandem_Op<"yield",
    [Pure, Terminator, HasParent<"FusionOp">, ReturnLike, Tandem_BarrierRole,
     Tandem_ZeroCost]> {
  let summary = "returns values from a fusion region";
  let description = [{
    Terminates a `tandem.fusion` body; its operands become the fusion's
    results.

    Example:

    ```mlir
    tandem.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Tandem_AnyTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Tandem_TransferOp : Tandem_InferredOp<"transfer",
    [Tandem_BarrierRole, Tandem_DataMovement]> {
  let summary = "copies tensors between devices in one batched copy";
  let description = [{
    Copies `inputs` from device `src` to device `dst`, written as quoted
    TensorFlow-style names (stored as `#tandem.device` attributes). Result `i`
    is input `i` on `dst`. Partitioning inserts these ops wherever values
    cross devices; users never write them. All values that cross the same
    boundary at the same point in the schedule share one op, which the
    runtime performs as one batched copy (one staging buffer, one
    asynchronous copy). The two devices differ, and when an input's producer
    carries a placement it must be `src`.

    Example:

    ```mlir
    %d:2 = tandem.transfer %x, %m from "/device:CPU:0" to "/device:GPU:0"
        : tensor<1x3x224x224xf32>, tensor<1x128xi1>
    ```
  }];
  let arguments = (ins Variadic<Tandem_AnyTensor>:$inputs,
                       Tandem_DeviceAttr:$src, Tandem_DeviceAttr:$dst);
  let results = (outs Variadic<Tandem_AnyTensor>:$outputs);
  let assemblyFormat = [{
    $inputs `from` custom<DeviceRef>($src) `to` custom<DeviceRef>($dst)
    attr-dict `:` type($inputs)
  }];
  let hasVerifier = 1;
}

#endif // TANDEM_OPS_TD
