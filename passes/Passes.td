//===- Passes.td - Tandem pass declarations ----------------*- tablegen -*-===//
//
// Every Tandem pass: its flag (prefixed tandem-), anchor, options, dependent
// dialects, and a description showing the IR before and after.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_TD
#define TANDEM_PASSES_TD

include "mlir/Pass/PassBase.td"

def TandemAssignDefaultDevice : Pass<"tandem-assign-default-device"> {
  let summary = "places every unplaced tandem op on one device";
  let description = [{
    Gives every tandem op without a `tandem.device` attribute the device named
    by `device` (default `/device:CPU:0`). Ops that already carry a device
    keep it, and ops nested in a `tandem.fusion` follow their fusion. It is
    the "everything on one device" placement used until the cost-model
    placement runs, and the soft-placement fallback when a target has no GPU.

    Before:

    ```mlir
    %0 = tandem.relu %x : tensor<4xf32>
    %1 = tandem.exp %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
    ```

    After `-tandem-assign-default-device`:

    ```mlir
    %0 = tandem.relu %x {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<4xf32>
    %1 = tandem.exp %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<4xf32>
    ```
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"/device:CPU:0\"",
           "TensorFlow-style name of the device to assign">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFoldBatchNorm : Pass<"tandem-fold-batch-norm"> {
  let summary = "folds inference BatchNorm into the conv, gemm or matmul before it";
  let description = [{
    Inference BatchNorm is a per-channel affine map `x * s + t` with
    `s = scale / sqrt(var + eps)` and `t = bias - mean * s`. When its input
    comes from a `conv2d`, `gemm` or `matmul` with constant f32 weights
    (and no other user), the weights are scaled by `s` per output channel
    and the bias becomes `b * s + t`; the BatchNorm disappears. A matmul
    (by a 2-D weight, batched or not) folds a BatchNorm over its last
    dimension, also when a reshape that keeps that dimension comes between
    them (LeViT's Linear + BatchNorm1d over the flattened tokens: a
    1 x 196 x 128 matmul read as 196 x 128); the bias becomes a `bias_add`
    on the matmul's last axis, the reshape after it.

    Before:

    ```mlir
    %0 = tandem.conv2d %x, %w, %b {...} : ... -> tensor<1x64x56x56xf32>
    %1 = tandem.batch_norm %0, %scale, %shift, %mean, %var : ...
    ```

    After:

    ```mlir
    %0 = tandem.conv2d %x, %w_folded, %b_folded {...} : ... -> tensor<1x64x56x56xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFoldChannelScale : Pass<"tandem-fold-channel-scale"> {
  let summary = "folds constant per-channel scales into the conv, gemm or matmul before them";
  let description = [{
    A layer scale (PoolFormer, ConvNeXt, CaiT, DeiT III: `gamma * x` before
    a residual add) multiplies a conv's or linear layer's output by a
    constant per channel. The product distributes over the layer's sum, so
    a `mul` by an f32 constant that varies along one axis only (a scalar
    scales every channel alike) folds into its input's producer when that
    has no other user:
    - a `conv2d` with a constant filter (and bias) along its channel axis:
      the filter's output channels and the bias scale;
    - a `gemm` with a constant B (and a per-column or scalar C) along its
      columns: B's columns (rows when transposed) and C scale;
    - a `matmul` with a constant 2-D right side, alone or under a
      `bias_add` with a constant bias along its last axis, along that
      axis: the right side's columns and the bias scale.
    A scale after a `transpose` (used once) of such a producer moves
    before it first, along the axis it came from (ConvNeXt's layer scale
    once its channels-last MLP is back in NCHW). The residual add that
    follows then meets the conv or GEMM, where a library call may absorb
    it. Results differ from the unfolded graph's only in rounding (the
    scale applied to each weight rather than to the sum).

    Before:
    ```mlir
    %y = tandem.conv2d %x, %w, %b {...} : (...) -> tensor<1x64x56x56xf32>
    %s = tandem.mul %y, %gamma : (tensor<1x64x56x56xf32>, tensor<64x1x1xf32>) -> tensor<1x64x56x56xf32>
    ```
    After:
    ```mlir
    %s = tandem.conv2d %x, %w_scaled, %b_scaled {...} : (...) -> tensor<1x64x56x56xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemMergeSiblingMatmuls : Pass<"tandem-merge-sibling-matmuls"> {
  let summary = "merges the matmuls of one value by constant weights into one";
  let description = [{
    HuggingFace-style attention projects its hidden state three times
    (query, key and value as separate Linear layers) and LLaMA-style MLPs
    twice (gate and up): each projection a GEMM of its own, launched and
    reading the activation separately. The `matmul`s of one value by
    constant 2-D f32 weights (same block, same leading dimensions), each
    with the `bias_add` along the last axis by a constant that is its only
    user if it has one, become one `matmul` by their weights side by side
    and one `bias_add` by their biases side by side (zeros where a
    projection has none); each projection's result is a `slice` of its
    columns, as GPT-2's exported c_attn is split. Runs after the folds
    that change a projection's weights alone (BatchNorm, channel scales:
    CLIP's and Whisper's query scales).

    Before:
    ```mlir
    %q = tandem.matmul %x, %wq : (tensor<1x32x768xf32>, tensor<768x768xf32>) -> tensor<1x32x768xf32>
    %qb = tandem.bias_add %q, %bq {axis = 2 : i64} : ...
    %k = tandem.matmul %x, %wk : (tensor<1x32x768xf32>, tensor<768x768xf32>) -> tensor<1x32x768xf32>
    ```
    After:
    ```mlir
    %m = tandem.matmul %x, %wqk : (tensor<1x32x768xf32>, tensor<768x1536xf32>) -> tensor<1x32x1536xf32>
    %mb = tandem.bias_add %m, %bqk {axis = 2 : i64} : ...
    %qb = tandem.slice %mb {starts = array<i64: 0, 0, 0>, limits = array<i64: 1, 32, 768>, ...}
    %k = tandem.slice %mb {starts = array<i64: 0, 0, 768>, limits = array<i64: 1, 32, 1536>, ...}
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemTrimConvTaps : Pass<"tandem-trim-conv-taps"> {
  let summary = "drops the window rows and columns of a conv2d that only ever read its zero padding";
  let description = [{
    Output `o` of a conv2d reads input `o * stride - pad + tap * dilation`
    along each spatial axis. A tap at the window's edge that no output
    reads inside the input multiplies zeros only: a dilated conv on a
    small feature map (DeepLabV3's ASPP, dilations 12, 24 and 36 on a 14x14
    map at a 224x224 input) reads its outer taps entirely in the padding.
    With static shapes and a constant f32 filter, such edge rows and
    columns are dropped from the filter and the padding shrinks so that
    the output keeps its shape; a window left one tap wide gets dilation 1.
    A dropped weight that is inf or NaN (0 * inf is NaN) keeps the conv as
    it is.

    Before (a 3x3 conv of dilation 36 on a 14x14 map):

    ```mlir
    %y = tandem.conv2d %x, %w {strides = array<i64: 1, 1>,
            pads = array<i64: 36, 36, 36, 36>,
            dilations = array<i64: 36, 36>, groups = 1 : i64}
        : (tensor<1x960x14x14xf32>, tensor<256x960x3x3xf32>)
        -> tensor<1x256x14x14xf32>
    ```

    After (the window's centre, a 1x1 conv):

    ```mlir
    %y = tandem.conv2d %x, %w_centre {strides = array<i64: 1, 1>,
            pads = array<i64: 0, 0, 0, 0>,
            dilations = array<i64: 1, 1>, groups = 1 : i64}
        : (tensor<1x960x14x14xf32>, tensor<256x960x1x1xf32>)
        -> tensor<1x256x14x14xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFoldConstantMovement : Pass<"tandem-fold-constant-movement"> {
  let summary = "computes transposes, constant-index gathers and reshapes of f32 constants at compile time";
  let description = [{
    The importer expresses weight rearrangements as data movement on the
    weight (ConvTranspose flips its kernel with constant-index gathers and
    swaps its channel axes with a transpose). On an f32 `tandem.constant`
    these are computed at compile time, so the consumer sees one constant
    (BatchNorm folding included) and nothing moves weights at run time.
    Results above 64 Mi elements are left alone.

    Before:

    ```mlir
    %w = tandem.constant dense<...> : tensor<4x2x3x3xf32>
    %i = tandem.constant dense<[2, 1, 0]> : tensor<3xi64>
    %f = tandem.gather %w, %i {axis = 2 : i64}
        : (tensor<4x2x3x3xf32>, tensor<3xi64>) -> tensor<4x2x3x3xf32>
    ```

    After:

    ```mlir
    %f = tandem.constant dense<...> : tensor<4x2x3x3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFoldConstantSubgraphs : Pass<"tandem-fold-constant-subgraphs"> {
  let summary = "evaluates the computations exports make on constants (masks, scales) at compile time";
  let description = [{
    Exports compute masks and scales from constants at run time: Swin's
    shifted-window attention mask (selects over window labels, a
    transpose, a broadcast subtraction, a comparison and selects), a
    causal mask's select, `pow(head_dim, -0.5)`. The op folders evaluate
    such ops only up to 1024 result elements (so that the canonicaliser
    never duplicates a weight). This pass finds the subgraphs of tandem ops
    computable from `tandem.constant`s (pure, one result, static shapes of
    at most 1 Mi elements per value; f32 `dense_resource` weights are read
    too) that hold at least one elementwise op, evaluates them through the
    same folders with that larger limit, and replaces each value leaving a
    subgraph by a constant (f32 ones above 1 KiB, 256 elements, as
    `dense_resource` blobs, as the importer stores weights); the
    subgraph's ops are erased. Ops without a
    folder stay as they are, and so does what depends on them. Subgraphs
    that only move data (a weight's reshape or transpose) are left to
    tandem-fold-constant-movement, which folds them only where that
    feeds a fold.

    Before:

    ```mlir
    %c = tandem.constant dense<[true, false, true]> : tensor<3xi1>
    %a = tandem.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %z = tandem.constant dense<0.0> : tensor<f32>
    %m = tandem.where %c, %a, %z
        : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %y = tandem.add %x, %m : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```

    After:

    ```mlir
    %m = tandem.constant dense<[1.0, 0.0, 3.0]> : tensor<3xf32>
    %y = tandem.add %x, %m : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFoldEmptyTensors : Pass<"tandem-fold-empty-tensors"> {
  let summary = "replaces computations on tensors with a zero-size dim by constants";
  let description = [{
    ONNX allows empty tensors (a zero-size dim). No kernel runs on one:

    * an op whose results are all empty becomes empty `tandem.constant`s;
    * an op with an empty operand whose result is not empty computes a
      value that does not depend on data: `matmul` over K = 0 gives 0,
      `reduce_sum` 0, `reduce_mean` NaN, `reduce_max` -inf (the lowest
      value for integers), and `concat` drops its empty operands;
    * any other op with an empty operand and a non-empty result is an error
      at its node.

    Before:

    ```mlir
    %0 = tandem.matmul %a, %b : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
    %1 = tandem.add %x, %y : (tensor<0x3xf32>, tensor<3xf32>) -> tensor<0x3xf32>
    ```

    After:

    ```mlir
    %0 = tandem.constant dense<0.0> : tensor<2x3xf32>
    %1 = tandem.constant dense<> : tensor<0x3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemNormalizeBias : Pass<"tandem-normalize-bias"> {
  let summary = "rewrites Gemm, MatMul+Add and Conv+Add into one bias form";
  let description = [{
    Gives dense layers one shape for fusion and codegen to match:

    * `gemm(a, B, c)` becomes `bias_add(matmul(a, B'), beta * c)`, with
      `B' = alpha * op(B)` computed at compile time when `B` is constant
      (a `transpose` otherwise); gemms with `trans_a` or a non-per-column
      `c` stay;
    * `add(matmul, c)` with `c` varying only along the last axis becomes
      `bias_add(matmul, c, axis = last)`; `add(conv2d, c)` with `c` of
      shape `[C,1,1]` becomes `bias_add(conv2d, c, axis = 1)`;
    * `bias_add(conv2d, b, axis = 1)` moves `b` into the conv's own bias
      (adding constant biases together).

    Before:

    ```mlir
    %0 = tandem.gemm %x, %w, %b {trans_b = true}
        : (tensor<1x512xf32>, tensor<1000x512xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
    ```

    After:

    ```mlir
    %w_t = tandem.constant dense_resource<fc_weight> : tensor<512x1000xf32>
    %0 = tandem.matmul %x, %w_t : (tensor<1x512xf32>, tensor<512x1000xf32>) -> tensor<1x1000xf32>
    %1 = tandem.bias_add %0, %b {axis = 1 : i64} : (tensor<1x1000xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemPlace : Pass<"tandem-place", "::mlir::ModuleOp"> {
  let summary = "places every op on the device where the model runs fastest";
  let description = [{
    Gives every tandem op of every function a `tandem.device`, choosing
    between the devices of `targets` with a cost model:

    * each op's time on each device is a roofline estimate (flops and bytes
      against the device description, plus launch overhead);
    * every value that crosses devices pays a host<->device copy, once per
      destination device;
    * the assignment minimising the estimated end-to-end latency is an
      s-t minimum cut between the host and the GPU (Stone's two-processor
      assignment, solved exactly with Dinic's max-flow); with several GPUs
      the pass cuts against each and keeps the cheapest.

    Pins come first: `pins` entries `glob=device` match ONNX node names and
    op names (first match wins), and a `tandem.device` already in the IR is
    honoured. Ops on integer (shape) data and ops without a GPU lowering stay
    on the CPU. With `soft-placement` (the default) a pin the target cannot
    honour falls back to the cost model with a warning; without it, it is an
    error. Constants follow their first user; partitioning makes them
    resident on every device that uses them.

    `report` writes the decisions (`-` for stdout): JSON when the path ends
    in `.json`, a readable table otherwise. See docs/Placement.md.

    Before (`-tandem-place="targets=cpu,gpu:sm_90 cpu-model=generic"`):

    ```mlir
    %0 = tandem.conv2d %x, %w : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>)
        -> tensor<1x64x54x54xf32>
    %1 = tandem.relu %0 : tensor<1x64x54x54xf32>
    ```

    After:

    ```mlir
    %0 = tandem.conv2d %x, %w {tandem.device = #tandem.device<"/device:GPU:0">} ...
    %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:GPU:0">} ...
    ```
  }];
  let options = [
    Option<"targets", "targets", "std::string", /*default=*/"\"cpu\"",
           "devices of the build, e.g. cpu or cpu,gpu:sm_90,gpu:h200">,
    Option<"cpuModel", "cpu-model", "std::string", /*default=*/"\"host\"",
           "host CPU preset: host, generic, xeon-8480, epyc-9654, grace">,
    Option<"deviceConfig", "device-config", "std::string", /*default=*/"\"\"",
           "JSON file overriding device numbers">,
    ListOption<"pins", "pins", "std::string",
               "GLOB=DEVICE pins on node or op names, first match wins">,
    Option<"softPlacement", "soft-placement", "bool", /*default=*/"true",
           "fall back (with a warning) when a pin cannot be honoured">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write the placement report here (- for stdout; .json for JSON)">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemAssignGPULayout
    : Pass<"tandem-assign-gpu-layout", "::mlir::ModuleOp"> {
  let summary = "puts the convolutions of GPU partitions in the layout their "
                "library prefers, with transposes only where it changes";
  let description = [{
    After placement, chooses once the data layout of the GPUs'
    convolutions: with `layout=nhwc` every f32 `tandem.conv2d` placed on a
    GPU becomes an NHWC one (`layout = "NHWC"`, OHWI filter; grouped and
    depthwise ones included), except one over a 1 x 1 map, whose bytes are
    the same in both layouts. Its input is transposed to NHWC before it
    (convs reading one value share that transpose) and its result back to
    NCHW after it, and a constant filter is transposed at compile time.
    Then, to a fixed point: transposes of transposes compose and cancel; a
    transpose sinks through the elementwise op that reads it (a bias,
    residual add, ReLU, clip, sigmoid, multiply) when every tensor operand
    is transposed alike, a broadcast no permutation changes, a broadcast
    whose permutation moves only size-1 dimensions (a reshape), or a value
    another user already transposes to NHWC; a transpose several such ops
    read is split; a max or average pool of an NHWC value becomes an NHWC
    pool (`layout = "NHWC"`, the transpose moving past it), and a global
    average pool of one a `tandem.reduce_mean` over H and W and a
    reshape. A chain of convolutions, elementwise work and pools on one
    GPU so stays NHWC, and transposes remain only where a value enters or
    leaves it (partition boundaries, reshapes). A transpose that moves
    only size-1 dimensions is made a reshape. Every op it creates takes
    the GPU of the op it came from. `layout=nchw` (the default) changes
    nothing; CPU ops are never touched.

    The driver (`tandemc --gpu-layout`, default `auto`) picks NHWC when
    the GPU's library convolutions run on tensor cores
    (`--gpu-precision=tf32|bf16|fp16`), whose cuDNN kernels read NHWC
    natively and would otherwise transpose NCHW inside every call, and
    NCHW in FP32, where cuDNN's FMA kernels take NCHW (docs/GPU.md,
    "Layouts").

    Before (`-tandem-assign-gpu-layout=layout=nhwc`):

    ```mlir
    %0 = tandem.conv2d %x, %w {tandem.device = #tandem.device<"/device:GPU:0">, ...}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %1 = tandem.relu %0 {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<1x4x6x6xf32>
    ```

    After:

    ```mlir
    %t = tandem.transpose %x {perm = array<i64: 0, 2, 3, 1>, ...} : tensor<1x3x8x8xf32> -> tensor<1x8x8x3xf32>
    %0 = tandem.conv2d %t, %w_ohwi {layout = "NHWC", ...}
        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
    %1 = tandem.relu %0 {...} : tensor<1x6x6x4xf32>
    %2 = tandem.transpose %1 {perm = array<i64: 0, 3, 1, 2>, ...} : tensor<1x6x6x4xf32> -> tensor<1x4x6x6xf32>
    ```
  }];
  let options = [
    Option<"layout", "layout", "std::string", /*default=*/"\"nchw\"",
           "data layout of the GPUs' convolutions: nchw or nhwc">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemFuse : Pass<"tandem-fuse", "::mlir::ModuleOp"> {
  let summary = "groups placed ops into tandem.fusion regions, one per kernel";
  let description = [{
    Groups the tandem ops of every function into `tandem.fusion` regions,
    each meant to become one kernel (docs/Fusion.md says where codegen
    still makes more), following XLA's taxonomy:

    * `output`: a conv2d/matmul/gemm root with its elementwise epilogue
      (bias_add, batch_norm, relu, clip, sigmoid, the residual add, ...);
    * `input`: a reduction root (reduce_*, softmax, layer_norm,
      global_avg_pool) with its elementwise producers and consumers;
    * `loop`: elementwise, broadcast and layout ops in one loop nest;
    * `multi_output`: any of the above returning several values (sibling
      reductions, or a value consumed inside and also needed outside).

    Candidates (producer/consumer edges and siblings sharing an input) are
    merged greedily in order of estimated benefit: bytes no longer written
    and read plus `launch-cost-bytes` per kernel launch removed. A merge is
    legal only within one `tandem.device`, never through a
    `tandem.transfer`, never when it would create a cycle, and within the
    `max-ops` / `max-operands` limits. Cheap producers with several
    consumers are duplicated into each consumer; expensive ones are not.
    When the original later joins a group that holds its copy (as a
    sibling: a multi-output fusion), the body's common subexpressions are
    merged, so that it runs once.
    Every op except constants and transfers ends up in exactly one fusion
    (single ops too), so the number of fusions is the number of kernels.
    Fusions are named `fusion.<root node name>`. See docs/Fusion.md.

    Before:

    ```mlir
    %0 = tandem.conv2d %x, %w, %b {...} : (...) -> tensor<1x8x6x6xf32>
    %1 = tandem.add %0, %r : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>)
        -> tensor<1x8x6x6xf32>
    %2 = tandem.relu %1 : tensor<1x8x6x6xf32>
    ```

    After `-tandem-fuse`:

    ```mlir
    %0 = tandem.fusion output "fusion.conv1" (%x, %w, %b, %r)
        {tandem.device = #tandem.device<"/device:CPU:0">}
        : (...) -> tensor<1x8x6x6xf32> {
    ^bb0(%a: ..., %f: ..., %c: ..., %s: ...):
      %1 = tandem.conv2d %a, %f, %c {...} : (...) -> tensor<1x8x6x6xf32>
      %2 = tandem.add %1, %s : (...) -> tensor<1x8x6x6xf32>
      %3 = tandem.relu %2 : tensor<1x8x6x6xf32>
      tandem.yield %3 : tensor<1x8x6x6xf32>
    }
    ```

    `fusion-report` writes every fusion and every rejected candidate with
    its reason as JSON; `disable-fusion` and `disable-fusion-of` switch
    fusion off by kind or by node-name glob for bisecting.
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", /*default=*/"32",
           "most ops in one fusion (constants cloned in do not count)">,
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"12",
           "most operands of one fusion">,
    Option<"launchCostBytes", "launch-cost-bytes", "uint64_t",
           /*default=*/"16384",
           "benefit of removing one kernel launch, in bytes of traffic">,
    Option<"maxDuplicateInputBytes", "max-duplicate-input-bytes", "uint64_t",
           /*default=*/"16384",
           "a producer is duplicated into several consumers only when it "
           "reads at most this many bytes">,
    Option<"maxInlineConstantElements", "max-inline-constant-elements",
           "uint64_t", /*default=*/"16",
           "splat constants and constants with at most this many elements "
           "are cloned into fusions; larger ones (weights) stay operands">,
    Option<"fusionReport", "fusion-report", "std::string", /*default=*/"\"\"",
           "write a JSON report of fusions and rejected candidates to this "
           "file ('-' for stdout)">,
    ListOption<"disableFusion", "disable-fusion", "std::string",
               "fusion kinds not to form, by name (the kinds of tandem.fusion, "
               "e.g. multi_output)">,
    ListOption<"disableFusionOf", "disable-fusion-of", "std::string",
               "node-name globs whose ops are never fused with others">
  ];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
}

def TandemPartition : Pass<"tandem-partition", "::mlir::ModuleOp"> {
  let summary = "outlines per-device partitions and inserts the transfers";
  let description = [{
    Splits every placed function into partition functions, one per maximal
    run of same-device work, and rewrites the function into the host
    schedule: calls to the partitions in order, with `tandem.transfer` copies
    wherever a value crosses devices.

    * Partitions never form a cycle: an op's stage is the largest stage of
      its producers, plus one where the producer is on another device; a
      partition is one (device, stage) pair, so every cross-device edge goes
      to a later stage.
    * A value is copied once per destination device, however many consumers
      it has there.
    * Values crossing the same boundary at the same point of the schedule
      (before one partition, or before the return) share one batched
      `tandem.transfer`.
    * Constants are cloned into every partition that uses them: on a GPU they
      are device-resident weights, uploaded once when the model is created.
      Clones share their attribute, so codegen keeps one buffer per
      (constant, device).

    Partition functions are private, named `<function>_p<k>_<device>` (e.g.
    `@model_p1_gpu0`) and carry `tandem.device` and `tandem.partition`.

    Before:

    ```mlir
    func.func @model(%x: tensor<8xf32>) -> tensor<8xf32> {
      %0 = tandem.exp %x {tandem.device = #tandem.device<"/device:GPU:0">} : tensor<8xf32>
      %1 = tandem.neg %0 {tandem.device = #tandem.device<"/device:CPU:0">} : tensor<8xf32>
      return %1 : tensor<8xf32>
    }
    ```

    After:

    ```mlir
    func.func @model(%x: tensor<8xf32>) -> tensor<8xf32> {
      %0 = tandem.transfer %x from "/device:CPU:0" to "/device:GPU:0" : tensor<8xf32>
      %1 = call @model_p0_gpu0(%0) {tandem.device = #tandem.device<"/device:GPU:0">} : (tensor<8xf32>) -> tensor<8xf32>
      %2 = tandem.transfer %1 from "/device:GPU:0" to "/device:CPU:0" : tensor<8xf32>
      %3 = call @model_p1_cpu0(%2) {tandem.device = #tandem.device<"/device:CPU:0">} : (tensor<8xf32>) -> tensor<8xf32>
      return %3 : tensor<8xf32>
    }
    func.func private @model_p0_gpu0(%arg0: tensor<8xf32>) -> tensor<8xf32>
        attributes {tandem.device = #tandem.device<"/device:GPU:0">, tandem.partition} {...}
    ```
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect",
                           "::mlir::func::FuncDialect"];
}

def TandemPlanMemory : Pass<"tandem-plan-memory", "::mlir::ModuleOp"> {
  let summary = "places every intermediate buffer at a static offset in one arena";
  let description = [{
    Runs after bufferisation. In every function, each statically shaped
    `memref.alloc` of the function's body becomes a `memref.view` into one
    arena, passed as a new last argument (`memref<N x i8>` marked
    `tandem.arena`); the function records the arena size in
    `tandem.arena_bytes`. Nothing is allocated per run: the runtime
    allocates the arena once, when the model is created.

    Offsets come from liveness: a buffer lives from its allocation to the
    last use of it or of any view of it (in block order), and buffers whose
    lifetimes do not overlap share memory. Buffers are placed largest first,
    each at the lowest 64-byte-aligned offset free for its whole lifetime
    (greedy by size, as TFLite's arena planner does). Deallocations of
    planned buffers disappear. Allocations the plan cannot place (dynamic
    sizes, inside loops) are left to the deallocation pipeline.

    Functions that call other functions are planned after those calls are
    inlined; a function with calls to planned functions is rejected.

    Before:

    ```mlir
    func.func @model(%x: memref<64xf32>, %y: memref<64xf32>) {
      %a = memref.alloc() : memref<64xf32>
      ...
      memref.dealloc %a : memref<64xf32>
    }
    ```

    After:

    ```mlir
    func.func @model(%x: memref<64xf32>, %y: memref<64xf32>,
                     %arena: memref<256xi8> {tandem.arena})
        attributes {tandem.arena_bytes = 256 : i64} {
      %c0 = arith.constant 0 : index
      %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "byte alignment of every buffer in the arena">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TANDEM_PASSES_TD
