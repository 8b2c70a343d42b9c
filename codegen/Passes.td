//===- Passes.td - Tandem codegen pass declarations --------*- tablegen -*-===//
//
// The codegen passes: lowering of the tandem graph dialect towards machine
// code. Each entry names its flag, anchor and dependent dialects, with a
// description showing the IR before and after.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_PASSES_TD
#define TANDEM_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def TandemLowerToLinalg : Pass<"tandem-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "lowers tandem compute ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every tandem compute op into upstream dialects on tensors, with
    the dialect conversion framework (every tandem op but `tandem.transfer`
    is illegal):

    * named linalg ops where one fits: `linalg.matmul`, `linalg.batch_matmul`,
      `linalg.conv_2d_nchw_fchw`, `linalg.depthwise_conv_2d_nchw_chw`,
      `linalg.conv_2d_ngchw_gfchw`, `linalg.pooling_nchw_max/sum`,
      `linalg.transpose`, `linalg.fill`;
    * `linalg.generic` for elementwise ops (NumPy broadcasting is in the
      indexing maps), reductions, softmax, layer_norm, gather and
      reflect/edge padding;
    * `tensor.pad`, `tensor.extract_slice`, `tensor.insert_slice`,
      `tensor.collapse_shape` / `tensor.expand_shape` for data movement, and
      `arith.constant` for constants (dense_resource blobs are kept).

    Layouts stay NCHW / OIHW. f16 and bf16 contractions accumulate in f32.

    `tandem.fusion` regions are lowered in place and inlined where the fusion
    was; every op they produce carries `tandem.kernel = "<fusion name>"` so
    later tiling can regroup the kernel. `tandem.transfer` and `func.call`
    stay; `tandem.device` attributes are not carried over. An op that cannot
    be lowered gets an error and the pass fails.

    A `tandem.gather` clamps every index into its axis, so no read leaves
    the table. Constant indices out of range are an error at the node; other
    indices are checked at run time outside GPU partitions: one reduction
    finds an out-of-range index and `tandem_report_index_error` makes the
    run fail with the node's name and the index.

    A function that returns one value twice (two graph outputs of one
    tensor) returns a `linalg.copy` of it the second time, so that every
    result gets a buffer of its own in destination-passing style.

    Before:

    ```mlir
    %0 = tandem.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = tandem.relu %0 : tensor<2x3xf32>
    ```

    After `-tandem-lower-to-linalg`:

    ```mlir
    %e0 = tensor.empty() : tensor<2x3xf32>
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e0 : tensor<2x3xf32>) {
    ^bb0(%l: f32, %r: f32, %o: f32):
      %s = arith.addf %l, %r : f32
      linalg.yield %s : f32
    } -> tensor<2x3xf32>
    %e1 = tensor.empty() : tensor<2x3xf32>
    %1 = linalg.generic {...} ins(%0 : tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
    ^bb0(%v: f32, %o: f32):
      %cst = arith.constant 0.000000e+00 : f32
      %m = arith.maximumf %v, %cst : f32
      linalg.yield %m : f32
    } -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def TandemLowerMemRefCopies : Pass<"tandem-lower-memref-copies"> {
  let summary = "rewrites memref.copy into linalg.copy loops";
  let description = [{
    Upstream lowers a `memref.copy` between strided (non-identity) layouts
    to a call of `memrefCopy` from MLIR's C runner library, which a compiled
    model cannot link. This pass turns every `memref.copy` into a
    `linalg.copy`, which becomes plain loops (and vector code) like every
    other kernel.

    Before:

    ```mlir
    memref.copy %a, %b : memref<2x3xf32, strided<[8, 1]>> to memref<2x3xf32>
    ```

    After:

    ```mlir
    linalg.copy ins(%a : memref<2x3xf32, strided<[8, 1]>>) outs(%b : memref<2x3xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TandemFlattenEmptyArguments
    : Pass<"tandem-flatten-empty-arguments", "::mlir::func::FuncOp"> {
  let summary = "gives empty multi-dimensional memref arguments of public functions a 1-D type";
  let description = [{
    LLVM's bare-pointer calling convention of the model function rejects a
    memref with a zero-size dim and a non-canonical row-major stride (such as
    `memref<2x0xf32>`), which would leave the function unlowered. Each such
    argument of a public function becomes `memref<0xT>`; its uses, if any,
    see a `memref.expand_shape` back to the old type. The pointer is
    never dereferenced: the buffer holds no element.

    Before:

    ```mlir
    func.func @model(%x: memref<2x0xf32>, %y: memref<2xf32>)
    ```

    After:

    ```mlir
    func.func @model(%x: memref<0xf32>, %y: memref<2xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TandemCollapseInnerLoops : Pass<"tandem-collapse-inner-loops"> {
  let summary = "merges the trailing loop dims of elementwise ops and of reductions on contiguous buffers";
  let description = [{
    An elementwise `linalg.generic` (all loops parallel, buffer semantics,
    static shapes, at least three loops) whose innermost loop is short (under
    64 iterations: the rows of a 14x14 or 7x7 plane) gets its trailing loop
    dims merged into one, as many as every operand allows: each operand either
    does not depend on them (a per-channel scale or bias) or holds them as
    consecutive dims in order in contiguous memory (`memref.collapse_shape`
    views). The first loop dim is always kept, so the thread pool still
    splits the outer loops. Once lowered, the innermost loop runs over whole
    planes and LLVM vectorises it; it leaves loops of fewer than 16 known
    iterations scalar.

    A reduction whose reduction dims come last and are two or more (a global
    average pool's sum over (h, w)) gets exactly those merged, under the same
    operand rules: its loop over a 28x28 plane becomes one of 784 contiguous
    elements. Left as (h, w), LLVM unrolled the row and vectorised across
    channels with gathers (MobileNetV3's squeeze-excitation pools spent 3.5%
    of the model's time there).

    Before:

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                     affine_map<(n, c, h, w) -> (n, c)>,
                                     affine_map<(n, c, h, w) -> (n, c, h, w)>], ...}
        ins(%x, %scale : memref<1x96x14x14xf32>, memref<1x96xf32>)
        outs(%y : memref<1x96x14x14xf32>)
    ```

    After:

    ```mlir
    %xc = memref.collapse_shape %x [[0], [1], [2, 3]] : ... to memref<1x96x196xf32>
    %yc = memref.collapse_shape %y [[0], [1], [2, 3]] : ... to memref<1x96x196xf32>
    linalg.generic {indexing_maps = [affine_map<(n, c, p) -> (n, c, p)>,
                                     affine_map<(n, c, p) -> (n, c)>,
                                     affine_map<(n, c, p) -> (n, c, p)>], ...}
        ins(%xc, %scale : memref<1x96x196xf32>, memref<1x96xf32>)
        outs(%yc : memref<1x96x196xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def TandemWriteResultsInPlace : Pass<"tandem-write-results-in-place"> {
  let summary = "writes reshaped function results into their output parameters in place";
  let description = [{
    `buffer-results-to-out-params` hoists a result that is an allocation
    into the output parameter, but copies one that reshapes an allocation
    (a model ending in a Flatten, a Squeeze or a head merge's Reshape):
    a copy kernel in a GPU partition, a memcpy on the CPU. When the output
    parameter has no other use and the allocation is static with an
    identity layout, in the same block as the copy, the allocation becomes
    the inverse reshapes of the output parameter (a collapse_shape for an
    expand_shape, an expand_shape for a collapse_shape) and the copy goes:
    what wrote the allocation writes the output.

    Before:

    ```mlir
    func.func @f(%x: memref<64x64xf32>, %y: memref<4x16x64xf32>) {
      %a = memref.alloc() : memref<64x64xf32>
      linalg.matmul ins(%x, %x : ...) outs(%a : memref<64x64xf32>)
      %e = memref.expand_shape %a [[0, 1], [2]] output_shape [4, 16, 64]
          : memref<64x64xf32> into memref<4x16x64xf32>
      memref.copy %e, %y : memref<4x16x64xf32> to memref<4x16x64xf32>
      return
    }
    ```

    After:

    ```mlir
    func.func @f(%x: memref<64x64xf32>, %y: memref<4x16x64xf32>) {
      %a = memref.collapse_shape %y [[0, 1], [2]]
          : memref<4x16x64xf32> into memref<64x64xf32>
      linalg.matmul ins(%x, %x : ...) outs(%a : memref<64x64xf32>)
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TandemNarrowPadFills : Pass<"tandem-narrow-pad-fills"> {
  let summary = "fills only the border of a padded buffer whose interior is copied over";
  let description = [{
    A `tensor.pad` bufferises into a fill of the whole padded buffer with the
    pad value, followed by a copy of the source into the buffer's interior.
    The interior is written twice; for a conv's padded input that doubles the
    memory traffic of the pad. This pass replaces such a fill (`linalg.fill`
    or a `linalg.map` yielding a value from outside) by fills of the border
    slabs only, when a later `memref.copy` in the same block overwrites a
    unit-stride, static subview of the buffer and nothing else reads or
    writes the buffer in between.

    Before:

    ```mlir
    linalg.map outs(%buf : memref<1x3x18x18xf32>) (%init: f32) {
      linalg.yield %zero : f32
    }
    %in = memref.subview %buf[0, 0, 1, 1] [1, 3, 16, 16] [1, 1, 1, 1] : ...
    memref.copy %src, %in : ...
    ```

    After: `linalg.fill` of the four border slabs (rows 0 and 17 of every
    channel, then columns 0 and 17 of rows 1..16), and the copy.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}


def TandemCallCPUKernels : Pass<"tandem-call-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "replaces f32 contractions on buffers by calls of the runtime's sgemm";
  let description = [{
    Runs on bufferized code. Every linalg op that is an f32 contraction
    (matmul, batch_matmul, matmul with transposed or broadcast operands, the
    GEMM that conv2d becomes after im2col; any `linalg.generic` whose body
    is a multiply-add) with at most one batch, exactly one M, one N and one
    K dimension becomes one call of the runtime's `tandem_sgemm_f32`, which
    packs the operands and runs a register-blocked AVX-512 / AVX2 micro-kernel
    on the model's thread pool (see docs/Codegen.md). Operands are passed as
    pointers plus element strides, read with `memref.extract_strided_metadata`,
    so views of the arena and transposed or broadcast operands need no copy.
    A `linalg.fill` of zero into the output that only feeds the contraction
    is dropped: the kernel overwrites instead of accumulating.

    A depthwise convolution whose input is a zero-padded copy (a +0.0
    fill of the padded buffer, then the source copied into its interior)
    becomes a `tandem_dwconv2d_pad_f32` call on the source with the top and
    left padding, and the fill, the copy and the padded buffer go, when
    nothing may write the source's bytes between the copy and the
    convolution (the output may be the source itself: the kernel reads each
    plane before writing it). With `implicit-pads-only`, the pass runs
    before `tandem-plan-memory` and does only this.

    f32 NCHW convolutions become calls of `tandem_conv2d_f32` (im2col or
    Winograd GEMMs) and depthwise ones of `tandem_dwconv2d_f32`, with a
    zero fill or a per-channel bias broadcast before them folded into the
    call. A grouped `linalg.conv_2d_ngchw_gfchw` becomes an `scf.for` over
    its groups with one `tandem_conv2d_f32` call per group on that group's
    input channels, filters, bias and output channels (pointer offsets, no
    copies); its bias is a [G, F] broadcast into the rank-5 output (or a
    [C] one into the rank-4 buffer the output expands). Ops between the
    fill or broadcast and the conv that touch other buffers (the pad's
    fill and copy of the input) do not stop the fold; a use of the output
    through any view of it does.

    Every public function gets a trailing `!llvm.ptr` argument marked
    `tandem.exec_ctx`: the `tandem_exec_ctx_t *` of the run, through which
    the kernel reaches the thread pool. The artifact's entry passes it.
    Contractions of other element types stay linalg (and become loops).

    Before:
    ```mlir
    linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
    linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x32xf32>)
                  outs(%c : memref<64x32xf32>)
    ```
    After (abridged):
    ```mlir
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a ...
    ...
    func.call @tandem_sgemm_f32(%ctx, %c1, %c64, %c32, %c128, %pa, %c0, %c128, %c1,
                                %pb, ..., %pc, ..., %flags) : (...) -> ()
    ```
  }];
  let options = [
    Option<"winograd", "winograd", "bool", /*default=*/"true",
           "let 3x3, stride-1 convolutions with constant filters and at "
           "least 16 input and output channels run as Winograd F(4x4, 3x3) "
           "or F(2x2, 3x3) (TANDEM_CONV2D_WINOGRAD; the kernel keeps the "
           "im2col GEMM for layers with too few output tiles)">,
    Option<"implicitPadsOnly", "implicit-pads-only", "bool",
           /*default=*/"false",
           "run before tandem-plan-memory and rewrite only the depthwise "
           "convolutions that read a zero-padded copy, into "
           "tandem_dwconv2d_pad_f32 calls on the copy's source, so that the "
           "plan holds no padded buffer for them (the later run gives these "
           "calls the execution context)">,
    Option<"packDepthwiseOutputs", "pack-depthwise-outputs", "bool",
           /*default=*/"true",
           "with implicit-pads-only: a depthwise conv whose output only a "
           "1x1 conv of stride 1 reads writes it in the GEMM's packed panel "
           "layout (tandem_dwconv2d_pad_packed_f32; its buffer grows to "
           "TANDEM_PACKED_PANEL_FLOATS per image), and the 1x1 conv reads "
           "it with no packing pass (tandem_conv2d_packed_f32; marked "
           "`tandem.packed_input` until the full run)">,
    Option<"fusePointwiseDepthwise", "fuse-pointwise-depthwise", "bool",
           /*default=*/"true",
           "with implicit-pads-only: a 1x1 conv of stride 1 whose output "
           "only an implicitly padded depthwise conv reads runs with it in "
           "one call (tandem_conv1x1_dwconv2d_f32, or _packed_f32 with a "
           "packed output), a few channels at a time, and its output buffer "
           "goes">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}


def TandemFuseElementwise : Pass<"tandem-fuse-elementwise"> {
  let summary = "fuses elementwise linalg ops, leaving contractions whole";
  let description = [{
    Upstream `linalg-fuse-elementwise-ops` (producer-consumer fusion of
    elementwise `linalg.generic`s, reshape propagation by expansion, constant
    folding), except that nothing is fused into or out of a contraction or
    convolution (a grouped one's `tandem.conv_groups` generic included),
    and no reshape is propagated through one; a transpose written as a
    generic (GPU partitions) does not fuse with an epilogue that a library
    call may absorb, which the formation absorbs only with identity maps:
    the only reader of a convolution's product (bias, residual,
    activation) or of a GEMM's (bias and activation; a residual add after
    a GEMM is no such epilogue). Upstream would
    fold the im2col that an f32 conv2d lowers to back into its GEMM, and
    generalise named matmuls, which hides them from
    `tandem-call-cpu-kernels`. A generic that reads a chain of reshapes
    which only moves size-1 dimensions, and which no single
    collapse or expand makes (N x C x 1 x 1 to N x 1 x 1 x C: an NHWC
    squeeze-and-excitation scale), reads the chain's source instead,
    through a map that indexes its size-1 dimensions at 0, so that the
    source's producer can fuse into it. In a GPU partition, a
    `tensor.extract` in a linalg payload (a concat's or gather's read) of
    an element of a pointwise linalg op's result, directly or through
    unit-stride extract_slices and reshapes, computes that element in
    place (the producer's inputs read through its maps, its payload
    cloned) when every use of the producer is such a read
    (codegen/GPU/InlineGatherReads.h): Swin's window reverse and first
    cyclic shift join the concat of the second. Also in a GPU partition,
    pointwise generics read through chains of static collapse_shapes and
    expand_shapes that upstream's reshape propagation cannot expand (a
    dimension a collapse made, split by an expand into other sizes:
    MaxViT's hop from window to grid partitions) with one composed
    affine map of floordivs and mods (codegen/GPU/ReadThroughReshapes.h):
    a copy (transpose) read only so goes away, its readers reading its
    input, and a pointwise producer read so fuses into its reader. In GPU
    partitions a pointwise producer cheap to compute again (arith ops, at
    most two inputs as large as its result) fuses into each pointwise
    reader even when it has other readers, all later in the block, and
    neither op is an epilogue a library call may absorb: it is computed
    again where each reads it instead of written and read back.

    Before:
    ```mlir
    %p = linalg.generic {im2col} ins(%x) outs(%e) -> tensor<1x27x25xf32>
    %c = tensor.collapse_shape %p [[0, 1], [2]] : ... into tensor<27x25xf32>
    %r = linalg.matmul ins(%w, %c : ...) outs(%bias : tensor<4x25xf32>)
    %y = linalg.generic {relu} ins(%r) outs(%e2)
    ```
    After: unchanged: the im2col stays a separate kernel and the matmul
    stays a named op. Two elementwise generics in a row become one.

    First, an f32 ReLU (`max(x, 0)`) or ReLU6 (`min(max(x, 0), 6)`) that
    is the only user of a contraction or convolution becomes its
    `tandem.epilogue` ("relu", "relu6"), applied by the kernel before its
    store. With `hardswish`, so does ONNX HardSwish as the importer writes
    it (`x * min(max(x * (1/6) + 0.5, 0), 1)`, "hardswish"), and with
    `silu` SiLU as torch exports it, Mul(x, Sigmoid(x)) once fused into
    one loop (`x * (1 / (1 + exp(-x)))`, "silu"; EfficientNet, YOLO): the
    CPU kernels apply them rounding each operation as the loop would (the
    SiLU's exp as tandem-approximate-math expands it, op for op); the GPU
    library calls have no such activations, so the GPU pipeline leaves
    them loops.
  }];
  let options = [
    Option<"hardswish", "hardswish", "bool", /*default=*/"false",
           "also fold HardSwish into the contraction or convolution it "
           "follows (tandem.epilogue = \"hardswish\"; CPU partitions)">,
    Option<"silu", "silu", "bool", /*default=*/"false",
           "also fold SiLU, x * sigmoid(x), into the contraction or "
           "convolution it follows (tandem.epilogue = \"silu\"; CPU "
           "partitions)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def TandemFoldIntoContractions : Pass<"tandem-fold-into-contractions"> {
  let summary = "folds transposes and adds into the contractions they feed or read";
  let description = [{
    On linalg tensors, before elementwise fusion and bufferisation, in the
    CPU pipeline only (the CPU sgemm reads and writes any strides and
    accumulates onto C; the GPU's library calls expect the named ops).

    **Transposes.** A `linalg.transpose` whose result only one contraction
    reads (a `linalg.matmul`, `batch_matmul` or contraction
    `linalg.generic` whose maps are projected permutations) is dropped: the
    contraction reads the transpose's input through a permuted indexing map
    instead. A transpose that is the only reader of a contraction's result,
    whose init is a `linalg.fill` of an empty tensor, is dropped too: the
    contraction fills and writes the transpose's result through a permuted
    output map. The contraction becomes a `linalg.generic` with the same
    body and iterators. In attention this removes a copy per transpose:
    K → Kᵀ (a strided gather), Q and V from [seq, heads, dim] to
    [heads, seq, dim], and the result back.

    **Adds.** An f32 `linalg.generic` computing X + Y, where X is the
    whole result of a contraction or a `linalg.conv_2d_nchw_fchw` that
    nothing else reads (possibly through a `tensor.expand_shape`) and Y is
    available before it, is dropped: its init becomes Y when the init was
    a zero fill and Y has X's shape (a residual connection), Y broadcast
    along the add's map for Y (a bias), or the old init plus Y. The sgemm
    and conv kernels then accumulate onto that init (and
    `tandem-call-cpu-kernels` passes a broadcast bias to the sgemm), and a
    ReLU after the add becomes the kernel's epilogue. The sum is
    the same up to rounding (the bias and residual are added before the
    products instead of after).

    Before:

    ```mlir
    %kt = linalg.transpose ins(%k : tensor<128x4x64xf32>)
        outs(%e : tensor<4x64x128xf32>) permutation = [1, 2, 0]
    %s = linalg.batch_matmul ins(%q, %kt : tensor<4x128x64xf32>,
        tensor<4x64x128xf32>) outs(%zero : tensor<4x128x128xf32>)
    %y = linalg.matmul ins(%x, %w : tensor<128x256xf32>,
        tensor<256x512xf32>) outs(%zero2 : tensor<128x512xf32>)
    %z = linalg.generic {add, maps [id, (d0, d1) -> (d1), id]}
        ins(%y, %bias : tensor<128x512xf32>, tensor<512xf32>) ...
    ```

    After: one `linalg.generic` whose map for the second input is
    `(d0, d1, d2, d3) -> (d2, d0, d3)`, reading `%k` itself; the matmul
    accumulates onto `%bias` broadcast to 128x512, and `%z` is its result.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TandemPromoteReductions : Pass<"tandem-promote-reductions"> {
  let summary = "keeps the accumulator of a reduction loop in a register";
  let description = [{
    A linalg reduction lowered to loops (`convert-linalg-to-parallel-loops`)
    loads its accumulator from the output buffer, combines it with an input
    element and stores it back on every iteration of the reduction loop.
    LLVM cannot keep it in a register, because the output and the inputs
    are views of one arena and it cannot prove that they do not overlap; the
    loop then runs one scalar, latency-bound add per element and is never
    vectorised (softmax's and LayerNorm's sums: 10% of a Transformer
    layer's time).

    For an `scf.for` whose body writes memory only through one
    `memref.store` at loop-invariant indices, fed by the body's only load of
    that buffer, at the same indices, this pass loads the element before
    the loop, carries it as an iter_arg and stores it after the loop. The
    op combining the accumulator with the loop's values (`arith.addf`,
    `mulf`, `maximumf`, `minimumf`, `maxnumf`, `minnumf`) gets the `reassoc`
    fast-math flag, so that LLVM may split the reduction into vector lanes:
    max and min give the same result in any order; a sum's rounding may
    change (within the end-to-end tolerances).

    It relies on what the loops come from: a linalg reduction whose inputs
    and output the memory plan never overlaps. Loops are visited innermost
    first, so an outer reduction loop around an inner one is promoted too.

    Before:

    ```mlir
    scf.for %k = %c0 to %c128 step %c1 {
      %x = memref.load %in[%i, %k] : memref<4x128xf32>
      %acc = memref.load %out[%i] : memref<4xf32>
      %sum = arith.addf %x, %acc : f32
      memref.store %sum, %out[%i] : memref<4xf32>
    }
    ```

    After:

    ```mlir
    %init = memref.load %out[%i] : memref<4xf32>
    %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %in[%i, %k] : memref<4x128xf32>
      %sum = arith.addf %x, %acc fastmath<reassoc> : f32
      scf.yield %sum : f32
    }
    memref.store %r, %out[%i] : memref<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TandemOutlineParallelLoops
    : Pass<"tandem-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "outlines the outermost scf.parallel loops into chunk bodies";
  let description = [{
    Runs on buffers, after `convert-linalg-to-parallel-loops`. Every
    outermost `scf.parallel` (not nested in another one) with constant
    bounds and no reductions whose estimated work (trip count times the
    operations its body executes, nested `scf.for` trip counts included)
    reaches `min-work` moves into a private function over a half-open range
    `[begin, end)` of iteration numbers of its outermost dimension with more
    than one iteration (a batch dimension of size 1 would leave nothing to
    split); the other dimensions stay as they were:

    ```
    func.func private @__tandem_par_<fn>_<k>(%begin: index, %end: index,
                                             <captured values>...)
        attributes {tandem.parallel_grain = <G> : i64}
    ```

    The loop is replaced by a serial `func.call` over the whole range, which
    is correct as it stands; `tandem-dispatch-parallel-calls` later runs it
    on the model's thread pool. The grain is the number of iterations that
    makes a chunk at least `chunk-work` operations.

    Captured values are what the body uses from above: constants and
    `memref.get_global`s are recreated inside, memrefs with static shapes,
    strides and offsets and scalars (integers, index, floats) become
    arguments. Under `use-bare-ptr-memref-call-conv` such a memref is one
    pointer; the callee rebuilds its descriptor from the static type, so
    strided views (subviews with offsets) are passed as they are. A loop
    that would capture anything else stays inline.

    A loop is outlined only if its chunks cannot race: every write in the
    body must be a `memref.store` indexing the chunked induction variable
    directly, at one position per buffer, along a dimension of non-zero
    stride, and nothing else may write memory (no calls). Chunks then write
    disjoint elements, and reductions (`scf.for` loops inside an iteration)
    run in the serial order, so results are bit-identical at any thread
    count.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1024) step (%c1, %c1) {
      %v = memref.load %a[%i, %j] : memref<64x1024xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %b[%i, %j] : memref<64x1024xf32>
    }
    ```
    After:
    ```mlir
    call @__tandem_par_f_0(%c0, %c64, %a, %b)
        : (index, index, memref<64x1024xf32>, memref<64x1024xf32>) -> ()
    ...
    func.func private @__tandem_par_f_0(%begin: index, %end: index,
        %a: memref<64x1024xf32>, %b: memref<64x1024xf32>)
        attributes {tandem.parallel_grain = 2 : i64} {
      %zero = arith.constant 0.0 : f32
      scf.parallel (%i, %j) = (%begin, %c0) to (%end, %c1024) step (%c1, %c1) {
        ...
      }
      return
    }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "loops estimated below this many scalar operations stay inline">,
    Option<"chunkWork", "chunk-work", "int64_t", /*default=*/"8192",
           "the grain gives each chunk at least this many scalar operations">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def TandemOutlineLoopNests
    : Pass<"tandem-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "moves the loop nests of very long functions into their own "
                "functions";
  let description = [{
    Runs after `tandem-outline-parallel-loops`. In a function whose body
    holds more than `min-loops` loop nests (`scf.for` / `scf.parallel` ops
    directly in its entry block), each loop nest without results moves into
    a private function, called in its place:

    ```
    func.func private @__tandem_loops_<fn>_<k>(<captured values>...)
        attributes {passthrough = ["noinline"]}
    ```

    Captures are handled as in `tandem-outline-parallel-loops`: constants
    and `memref.get_global`s are recreated inside, bare-pointer memrefs and
    scalars become arguments; a nest that would capture anything else stays
    inline. The functions are `noinline` so that LLVM keeps them apart.

    Why: the partitions of a long graph (thousands of small elementwise
    kernels) become one function with thousands of loops, where LLVM's
    register allocation and instruction selection grow faster than the
    function (a 4000-op chain spent 15 s there). Small functions keep code
    generation linear in the graph's size; the calls cost nanoseconds
    against the kernels' work. Models with fewer nests are unchanged.
  }];
  let options = [
    Option<"minLoops", "min-loops", "int64_t", /*default=*/"4",
           "functions with at most this many loop nests stay as they are">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def TandemDispatchParallelCalls
    : Pass<"tandem-dispatch-parallel-calls", "::mlir::ModuleOp"> {
  let summary = "runs the outlined loop bodies through tandem_parallel_for";
  let description = [{
    Runs on the LLVM dialect, after `convert-func-to-llvm`. Every `llvm.call`
    of a function marked `tandem.parallel_grain` (made by
    `tandem-outline-parallel-loops`) inside a function with a
    `tandem.exec_ctx` argument (the run's `tandem_exec_ctx_t *`, whose first
    field is the thread pool) becomes a call of the runtime's
    `tandem_parallel_for(pool, end - begin, grain, @<body>_tramp, env)`.
    `env` is a struct `{begin, captured values...}` in an `llvm.alloca` of
    the caller's entry block, filled at the call site; the internal
    trampoline `<body>_tramp(env, b, e)` loads it and calls the body over
    `[begin + b, begin + e)`. `tandem_parallel_for` returns after every
    chunk has run, so the stack environment outlives its readers. Calls
    from functions without the context stay serial.

    Before:
    ```mlir
    llvm.call @__tandem_par_f_0(%c0, %c64, %a, %b) : (i64, i64, !llvm.ptr, !llvm.ptr) -> ()
    ```
    After:
    ```mlir
    %env = llvm.alloca %one x !llvm.struct<(i64, ptr, ptr)> : (i64) -> !llvm.ptr  // entry block
    ...
    llvm.store %c0, %env ; llvm.store %a, ... ; llvm.store %b, ...
    %pool = llvm.load %ctx : !llvm.ptr -> !llvm.ptr
    %n = llvm.sub %c64, %c0 : i64
    %fn = llvm.mlir.addressof @__tandem_par_f_0_tramp : !llvm.ptr
    llvm.call @tandem_parallel_for(%pool, %n, %grain, %fn, %env)
        : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TandemApproximateMath : Pass<"tandem-approximate-math"> {
  let summary = "inlines polynomial approximations of exp, expm1, erf and tanh";
  let description = [{
    CPU lowering, after `math-expand-ops` and before `convert-math-to-llvm`.
    LLVM lowers `math.exp` and `math.erf` to calls of libm's scalar `expf`
    and `erff`, one per element, which also stops the loop vectoriser: in
    the Transformer layer's softmax `expf` was 8.5% of the run, in the BERT
    layer's GELU `erff` 7.6%. This pass rewrites the f32 forms of
    `math.exp`, `math.expm1`, `math.erf` and `math.tanh` with MLIR's
    polynomial approximations (`populateMathPolynomialApproximationPatterns`:
    range reduction and a minimax polynomial in plain `arith` ops, with
    the special cases for infinities and NaN), which LLVM vectorises with
    the surrounding loop. Their error is a few ulp, inside the end-to-end
    tolerance against onnxruntime (rtol 1e-4, atol 1e-5). Other element
    types, and other math ops, keep their libm calls.

    Before:
    ```mlir
    %e = math.exp %x : f32
    ```
    After: `arith` ops only (bitcasts, `math.fma`, selects); no call.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def TandemFlattenWeightGlobals
    : Pass<"tandem-flatten-weight-globals", "::mlir::ModuleOp"> {
  let summary = "stores constant tensors as flat byte arrays for object emission";
  let description = [{
    Runs on the LLVM dialect, last in the CPU lowering. A lowered
    `memref.global` constant is an `llvm.mlir.global` whose type nests one
    array per tensor dimension. Translated as is, LLVM builds one uniqued
    constant per innermost row (a 512x512x3x3 conv weight becomes 786k
    three-element arrays plus their parents), optimises over them and emits
    them element by element: for ResNet-50's 100 MB of weights that took
    over a minute and several GiB.

    This pass retypes every non-splat constant global holding integer or
    float elements of whole bytes as `!llvm.array<N x i8>` over the same raw
    bytes. A `dense_resource` keeps its blob (no copy); an inline `dense`
    value is reinterpreted as bytes. LLVM then holds one byte string per
    weight (and an ELF object's emitter takes the large ones out of LLVM
    altogether, codegen/Artifact/StreamedWeights.h). Uses are
    unaffected: `llvm.mlir.addressof` yields an opaque `!llvm.ptr`, and
    every `llvm.getelementptr` names its own element type. The alignment
    becomes at least 64 bytes (the micro-kernels' packed loads).

    Before:
    ```mlir
    llvm.mlir.global private constant @w(dense_resource<w> : tensor<2x3xf32>)
        {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<2 x array<3 x f32>>
    ```
    After:
    ```mlir
    llvm.mlir.global private constant @w(dense_resource<w> : tensor<24xi8>)
        {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<24 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TandemSplitReductions
    : Pass<"tandem-split-reductions", "::mlir::ModuleOp"> {
  let summary = "splits long reductions over few points in GPU partitions";
  let description = [{
    Runs on tensors, after `tandem-fuse-elementwise`. A reduction gets one
    GPU block per output point; with few points and a long reduction each
    (a GroupNorm of one group at batch 1: one point over 200704 elements,
    on one SM of 132) most of the GPU idles. In every GPU partition, a
    `linalg.generic` reduction with block combiners (each output
    `out = combine(x, out)`, the combiner associative and commutative:
    add, mul, min, max, ...), static loops, no `linalg.index`, outputs
    indexed by the parallel loops only, neither a contraction nor a
    convolution, with at most 32 output points and at least 49152
    reduction points each (192 KiB of f32 per block, more than 5 us at one
    SM's share of an H200's bandwidth, more than the launch the split
    adds) becomes two generics, as XLA's tree reduction
    rewriter does:
    - the partial results: the same payload over the op's loops where the
      leading reduction loops and slices of the next one are parallel
      (loop r of trip count t split as r = s * (t / f) + q), into new
      tensors of the outputs' shapes followed by the split's dimensions,
      filled with the combiners' identities;
    - their combination (`tandem.split_combine`, which no row kernel
      takes): a reduction over the split's dimensions into the op's
      outputs from their initial values, with the op's combiners.
    The split is the fewest partial results per point that make at least
    128 in all, with slices of at least 1024 points (fewer when the
    reduction is too short for that; none below 4 per point). Results
    differ from the single reduction's only in the order of the sums.

    Before:
    ```mlir
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)],
                         iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<1x200704xf32>) outs(%zero : tensor<1xf32>) {addf}
    ```
    After:
    ```mlir
    %p = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1 * 1568 + d2),
                                          (d0, d1, d2) -> (d0, d1)],
                         iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : tensor<1x200704xf32>) outs(%zeros : tensor<1x128xf32>) {addf}
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)],
                         iterator_types = ["parallel", "reduction"]}
        ins(%p : tensor<1x128xf32>) outs(%zero : tensor<1xf32>) {addf}
        {tandem.split_combine}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TandemKeepGPUPartitions
    : Pass<"tandem-keep-gpu-partitions", "::mlir::ModuleOp"> {
  let summary = "marks GPU partition functions no_inline";
  let description = [{
    Sets `no_inline` on every partition function (`tandem.partition`) whose
    `tandem.device` is a GPU, so that the `inline` pass that follows folds
    only the host partitions into the schedule. GPU partitions stay
    functions; after bufferisation their outputs are arguments and
    `tandem-outline-kernels` splits them into kernels.

    Before:
    ```mlir
    func.func private @model_p0_gpu0(%x: tensor<4xf32>) -> tensor<4xf32>
        attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition}
    ```
    After:
    ```mlir
    func.func private @model_p0_gpu0(%x: tensor<4xf32>) -> tensor<4xf32>
        attributes {no_inline, tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition}
    ```
  }];
}

def TandemOutlineKernels : Pass<"tandem-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "outlines every op of a bufferised GPU partition into a kernel function";
  let description = [{
    Runs on buffers. In every GPU partition (`tandem.partition` placed on a
    GPU), each linalg op and each `memref.copy` becomes a *kernel function*
    (docs/GPU.md): a private `func.func` with the unit attribute
    `tandem.kernel`, named `@<partition>_k<i>_<fusion>_<op>`, whose
    arguments are whole buffers with static shapes and identity layouts,
    inputs first, then outputs (a buffer the op writes is an output), with
    no results and no allocations but the padded buffers of its prologue. The views (subviews, reshapes, casts)
    and scalar constants the op uses are recreated inside the kernel, so a
    kernel argument is always a buffer itself: an argument of the
    partition, a `memref.alloc` or a `memref.get_global`. A `memref.copy`
    becomes a `linalg.copy` in its kernel.

    An op's *prologue* (codegen/GPU/KernelPrologue.h) joins its kernel,
    before it: the fill and interior copy of a padded buffer it reads (a
    bufferised `tensor.pad`; the buffer becomes a `memref.alloc` local to
    the kernel), and the elementwise op that writes its whole output right
    before it (a convolution's broadcast bias, a matmul's zero fill), when
    only allocations and effect-free ops lie in between. So Conv + BiasAdd
    + ReLU with padding is one kernel and one launch; the kernel function
    still holds the ops as written, which its CPU twin runs.

    A chain of consecutive ops that work row by row (a softmax, a LayerNorm
    and the elementwise ops next to them; codegen/GPU/RowKernels.h) becomes
    one *row kernel*, `@<partition>_k<i>_<fusion>_<op>_rows` with
    `tandem.row_kernel = array<i64: rows...>`: the chain grows from a
    reduction over rows of at least 16 points, over neighbours with the
    same leading parallel loops (unit loops aside; a pointwise neighbour's
    row loops are moved first when that lets it join) whose accesses to
    buffers the chain writes stay in their own row. Allocations only the chain touches
    become local to it; the call goes where the chain's last op was, and
    deallocations in between move after it. A reduction whose parallel
    loops do not all come first (an NHWC mean over H and W) first has its
    loops interchanged, parallel ones first, so that it can anchor such a
    chain. A softmax's chain takes in the contractions around it (Q K^T and
    P V, whose loops may group the rows differently: a batched matmul over
    windows x heads) as one *attention* kernel, `..._attention`; the
    query's producer (the head split's transpose with its scale) moves
    right before it and joins as its first stage, and a transpose that
    writes its V (or a plain transposed query) or reads its output (the
    head merge) folds into the contraction's indexing map when the block's
    threads still access consecutive elements
    (codegen/GPU/AttentionOperands.h). Allocations local to a chain are
    chosen longest rows first within 32 KiB of shared memory per block.

    A pointwise generic right after a reduction that reads the
    reduction's output at each of its points (an average pool's division
    and what follows it) joins the reduction's kernel as its epilogue,
    marked `tandem.kernel_epilogue`, when the reduction gets a thread per
    output point, its prologue computes the output's initial values, the
    output is an allocation only the two use (it becomes local to the
    kernel), and the epilogue writes no buffer the reduction reads
    (`matchPointwiseEpilogue`): each thread then runs the epilogue on its
    final value instead of storing it.

    The op is replaced by a `func.call` of its kernel carrying the launch
    geometry of the mapping (one thread per point of the parallel loops,
    256 threads per block, see docs/GPU.md) as
    `tandem.launch_dims = array<i64: gx, gy, gz, bx, by, bz>`.
    Temporaries between kernels stay `memref.alloc`s of the partition; the
    host schedule plans them into the device arena.

    An op that is neither a kernel, a view, a constant nor an allocation is
    an error: it would have to run on the host.

    Before:
    ```mlir
    func.func private @model_p0_gpu0(%x: memref<4x8xf32>, %y: memref<4x8xf32>)
        attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {
      linalg.generic {...} ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
          attrs = {tandem.kernel = "fusion.relu1"} {...}
      return
    }
    ```
    After:
    ```mlir
    func.func private @model_p0_gpu0(%x: memref<4x8xf32>, %y: memref<4x8xf32>) ... {
      call @model_p0_gpu0_k0_relu1_generic(%x, %y)
          {tandem.launch_dims = array<i64: 1, 1, 1, 32, 1, 1>}
          : (memref<4x8xf32>, memref<4x8xf32>) -> ()
      return
    }
    func.func private @model_p0_gpu0_k0_relu1_generic(%x: memref<4x8xf32>,
        %y: memref<4x8xf32>) attributes {tandem.kernel} {
      linalg.generic {...} ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {...}
      return
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TandemMapKernelsToGPU
    : Pass<"tandem-map-kernels-to-gpu", "::mlir::ModuleOp"> {
  let summary = "clones every kernel function into a gpu.module, mapped to blocks and threads";
  let description = [{
    For every kernel function (`tandem.kernel`, made by
    `tandem-outline-kernels`), adds a `gpu.func` of the same name and
    signature, marked `gpu.kernel` with its `known_block_size`, to one
    `gpu.module` (the module becomes a `gpu.container_module`). The kernel
    functions themselves stay: they are also the source of the CPU twins.

    The mapping is the same for every kernel: the parallel loops of its
    linalg op are flattened row-major into one index
    `id = blockIdx.x * bx + threadIdx.x`; a guard `id < total` drops the
    threads of the ragged last block, so any size maps; `id` is
    delinearised into the loop indices; reduction loops run serially in the
    thread as `scf.for` with the outputs carried in registers (loaded once,
    stored once). When the outputs are not partitioned by the parallel
    loops (an output map that is not a projected permutation of exactly the
    parallel loops), one thread runs the whole op. Nothing stays on the
    host. `bx` is 256, or the thread count rounded up to a warp when it is
    smaller; the grid is `ceil(total / bx)` blocks.

    Only a kernel's last linalg op is mapped; the ops before it must be its
    prologue (codegen/GPU/KernelPrologue.h), which the mapped code evaluates
    per point: a load from a padded buffer reads the unpadded source under
    a bounds check (the pad value outside), and each thread's accumulator
    starts from the init producer's value at its output instead of a load.
    Any other second linalg op is an error, except in a row kernel
    (`tandem.row_kernel`, codegen/GPU/RowKernels.h): one block per row, its
    ops mapped in order as stages (a block reduction, threads striding
    over the row, a contraction's points split among groups of threads
    that share its reductions, or a warp per point whose lanes share them)
    with a `gpu.barrier` between two, its allocations one row each in
    shared memory (workgroup attributions).

    Before:
    ```mlir
    func.func private @k(%a: memref<300x64xf32>, %s: memref<300xf32>) attributes {tandem.kernel} {
      linalg.generic {iterator_types = ["parallel", "reduction"], ...}
          ins(%a : memref<300x64xf32>) outs(%s : memref<300xf32>) {...}
      return
    }
    ```
    After (added):
    ```mlir
    gpu.module @tandem_kernels {
      gpu.func @k(%a: memref<300x64xf32>, %s: memref<300xf32>) kernel
          attributes {known_block_size = array<i32: 256, 1, 1>} {
        %bid = gpu.block_id x
        %tid = gpu.thread_id x
        %id = ... %bid * 256 + %tid
        %in = arith.cmpi ult, %id, %c300 : index
        scf.if %in {
          %init = memref.load %s[%id]
          %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (f32) {...}
          memref.store %r, %s[%id]
        }
        gpu.return
      }
    }
    ```
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string", /*default=*/"\"tandem_kernels\"",
           "name of the gpu.module that receives the kernels">,
    Option<"emulateOnHost", "emulate-on-host", "bool", /*default=*/"false",
           "instead of gpu.funcs, add func.func @<kernel>_emulated running "
           "the same mapped body for every block and thread in serial loops "
           "(checks the mapping's numerics on the CPU)">,
    Option<"replaceKernels", "replace-kernels", "bool", /*default=*/"false",
           "with emulate-on-host: the emulated body replaces the kernel "
           "function's own body (its CPU twin then runs the GPU mapping; "
           "tandemc --gpu-twins=mapped)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

#endif // TANDEM_CODEGEN_PASSES_TD
