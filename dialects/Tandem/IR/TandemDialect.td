//===- TandemDialect.td - The tandem graph dialect ---------*- tablegen -*-===//
//
// The `tandem` dialect: Tandem's tensor-level graph IR. ONNX models import
// into it; placement, fusion and partitioning rewrite it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECT_TD
#define TANDEM_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tandem_Dialect : Dialect {
  let name = "tandem";
  let cppNamespace = "::mlir::tandem";
  let summary = "Tandem's tensor graph dialect";
  let description = [{
    The `tandem` dialect is the graph-level IR of the Tandem compiler. Its ops
    work on statically shaped builtin ranked tensors (f32 first; f64, f16,
    bf16, the integers and i1 where meaningful) and follow ONNX semantics
    closely, with a few normalisations that keep later passes simple:

    * every axis attribute is non-negative and in range;
    * NCHW activations and OIHW filters for convolutions and pooling;
    * binary elementwise ops broadcast like NumPy.

    Element types carry ONNX's signedness: signed integers are the signless
    `i8`, `i16`, `i32` and `i64` (as MLIR's arith dialect reads them),
    unsigned ones are `ui8`, `ui16`, `ui32` and `ui64`, and booleans are
    `i1`. `tandem-lower-to-linalg` picks the arith op for each integer
    operation from that type (`divui`, `remui`, `cmpi ult`, `maxui`,
    `uitofp`, `fptoui`, `extui` for unsigned operands; their signed forms
    otherwise) and then makes every type in the module signless, since arith
    and LLVM only know signless integers: after it, `ui8` and `i8` are one
    type whose meaning the chosen ops carry. The ABI keeps the distinction
    (`TANDEM_U8` and `TANDEM_I8` in `tandem_dtype_t`), read from the model
    function before lowering.

    The result types of tensor ops are inferred from operands and attributes
    (`InferTypeOpInterface`); only the structural `tandem.fusion` spells its
    results out. Verifiers reject inconsistent shapes with a
    located diagnostic. Dynamic dimensions (`?`) are rejected until dynamic
    shapes are supported.

    Placement is recorded with the discardable `tandem.device` attribute,
    whose value is a `#tandem.device<"/device:GPU:0">` attribute. Fused ops
    live in `tandem.fusion` regions and cross-device copies are explicit
    `tandem.transfer` ops.

    Each op declares the properties that passes read, so that none comes
    from a list elsewhere and a new op cannot be mis-classified or costed by
    a default (`test/unit/OpPropertiesTest.cpp` checks every op):

    * its fusion role, exactly one of the traits `MatrixRole`,
      `ReductionRole`, `Elementwise` (or `ElementwiseRole`, for an op such
      as `batch_norm` that fusion treats as elementwise), `LayoutRole`,
      `WindowRole` and `BarrierRole` (docs/Fusion.md);
    * `Transcendental`, on the elementwise ops dominated by a transcendental
      function, which fusion does not duplicate;
    * its cost: `CostOpInterface::getFlops`, from `FlopsPerElement<N>` on
      elementwise ops (1 unless the op says otherwise), from `DataMovement`
      (no arithmetic) on ops that only move or convert elements, or from the
      op's own formula (`TandemOpCosts.cpp`); or the `ZeroCost` trait on
      ops that run no kernel and move no data (`constant`, `reshape`,
      `yield`). See docs/Dialects/TandemInterfaces.md.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in TandemAttrs.cpp).
    void registerAttributes();

    /// Name of the discardable attribute holding an op's placement.
    static constexpr ::llvm::StringLiteral getDeviceAttrName() {
      return ::llvm::StringLiteral("tandem.device");
    }

    /// Name of the unit attribute marking a partition function (one
    /// device's share of a model, called from the host schedule).
    static constexpr ::llvm::StringLiteral getPartitionAttrName() {
      return ::llvm::StringLiteral("tandem.partition");
    }

    /// Name of the integer attribute on a function whose intermediate
    /// buffers live in one arena: the arena's size in bytes.
    static constexpr ::llvm::StringLiteral getArenaBytesAttrName() {
      return ::llvm::StringLiteral("tandem.arena_bytes");
    }

    /// Name of the unit argument attribute marking that arena argument.
    static constexpr ::llvm::StringLiteral getArenaAttrName() {
      return ::llvm::StringLiteral("tandem.arena");
    }

    /// Name of the discardable string attribute that codegen puts on the
    /// ops lowered from one `tandem.fusion`: the fusion's name, so later
    /// tiling can regroup the kernel. On a `func.func` it is a unit
    /// attribute marking a GPU kernel function (docs/GPU.md).
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("tandem.kernel");
    }

    /// Whether `op` is a GPU kernel function: it carries that attribute as
    /// a unit attribute.
    static bool isKernelFunction(::mlir::Operation *op);

    /// Name of the discardable string attribute naming the epilogue a
    /// contraction or convolution applies before its store ("relu",
    /// "relu6", i.e. min(6, max(0, x)), "hardswish", i.e. x * min(max(x
    /// * (1/6) + 0.5, 0), 1), or "silu", i.e. x * (1 / (1 + exp(-x))), the
    /// last two on CPU partitions only), set by
    /// tandem-fuse-elementwise and consumed by tandem-call-cpu-kernels.
    static constexpr ::llvm::StringLiteral getEpilogueAttrName() {
      return ::llvm::StringLiteral("tandem.epilogue");
    }

    /// Name of the unit attribute on a 1x1 `linalg.conv_2d_nchw_fchw`
    /// whose input a depthwise conv writes in the GEMM's packed panel
    /// layout (tandem-call-cpu-kernels before memory planning): the full
    /// run makes it a `tandem_conv2d_packed_f32` call, and fails if it
    /// cannot.
    static constexpr ::llvm::StringLiteral getPackedInputAttrName() {
      return ::llvm::StringLiteral("tandem.packed_input");
    }

    /// Name of the integer attribute (the group count) on the
    /// `linalg.generic` a grouped NHWC `tandem.conv2d` lowers to (its
    /// `strides` and `dilations` as on the named convs), by which
    /// tandem-form-library-convs knows it for a convolution.
    static constexpr ::llvm::StringLiteral getConvGroupsAttrName() {
      return ::llvm::StringLiteral("tandem.conv_groups");
    }

    /// Name of the `array<i64: gx, gy, gz, bx, by, bz>` attribute on a
    /// call of a GPU kernel function: its launch geometry.
    static constexpr ::llvm::StringLiteral getLaunchDimsAttrName() {
      return ::llvm::StringLiteral("tandem.launch_dims");
    }

    /// Name of the integer attribute on a loop body outlined by
    /// tandem-outline-parallel-loops: iterations per chunk when it runs
    /// through tandem_parallel_for.
    static constexpr ::llvm::StringLiteral getParallelGrainAttrName() {
      return ::llvm::StringLiteral("tandem.parallel_grain");
    }

    /// Name of the `array<i64>` attribute on a GPU kernel function that
    /// runs a chain of row-wise stages with one block per row
    /// (tandem-outline-kernels, docs/GPU.md "Row kernels"): the rows' trip
    /// counts.
    static constexpr ::llvm::StringLiteral getRowKernelAttrName() {
      return ::llvm::StringLiteral("tandem.row_kernel");
    }

    /// Name of the unit attribute on the `linalg.generic` that combines the
    /// partial results of a reduction split by tandem-split-reductions
    /// (docs/GPU.md "Split reductions"): no row kernel takes it.
    static constexpr ::llvm::StringLiteral getSplitCombineAttrName() {
      return ::llvm::StringLiteral("tandem.split_combine");
    }

    /// Name of the unit attribute on a GPU kernel function that computes a
    /// split reduction's partial results and, in the block that finishes
    /// last, their combination (docs/GPU.md "Split reductions"): its last
    /// argument, a `memref<1xi32>` that starts at zero, counts the blocks
    /// that have stored their partial results (tandem-map-kernels-to-gpu
    /// checks its type).
    static constexpr ::llvm::StringLiteral getSplitArrivalsAttrName() {
      return ::llvm::StringLiteral("tandem.split_arrivals");
    }

    /// Name of the unit attribute on the pointwise `linalg.generic` of a
    /// GPU kernel function that takes the output of the linalg op before
    /// it where each thread computes it (docs/GPU.md "Pointwise
    /// epilogues").
    static constexpr ::llvm::StringLiteral getKernelEpilogueAttrName() {
      return ::llvm::StringLiteral("tandem.kernel_epilogue");
    }
  }];
}

#endif // TANDEM_DIALECT_TD
