//===- TandemExecOps.td - host schedule ops ----------------*- tablegen -*-===//
//
// Ops of the `tandem_exec` dialect: unscheduled transfers (what bufferising
// `tandem.transfer` produces), device buffers, copies on streams, events,
// kernel launches and partition markers.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_EXEC_OPS_TD
#define TANDEM_EXEC_OPS_TD

include "dialects/TandemExec/IR/TandemExecDialect.td"
include "dialects/Tandem/IR/TandemAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Rejects memref operands and results whose size in bytes overflows int64
/// before any op verifier multiplies their dims.
def TandemExec_ShapeSizesFit : NativeOpTrait<"ShapeSizesFit"> {
  let cppNamespace = "::mlir::tandem::OpTrait";
}

class TandemExec_Op<string mnemonic, list<Trait> traits = []>
    : Op<TandemExec_Dialect, mnemonic,
         !listconcat([TandemExec_ShapeSizesFit], traits)>;

/// The device arena: buffer ops write it (so that CSE never merges two
/// buffers and bufferisation's deallocation sees known effects, not an
/// allocation it would have to free).
def TandemExec_DeviceArena
    : Resource<"::mlir::tandem::exec::DeviceArenaResource">;

/// The streams and events: records, waits and partition markers change
/// their state and keep their order.
def TandemExec_Streams : Resource<"::mlir::tandem::exec::StreamsResource">;
defvar StreamEffects = MemoryEffects<[MemWrite<TandemExec_Streams>]>;

def TandemExec_TransferOp : TandemExec_Op<"transfer"> {
  let summary = "an unscheduled copy of one buffer between two devices";
  let description = [{
    Copies `source`, on device `src`, into `target`, on device `dst`. This is
    what one-shot bufferisation makes of each input of a `tandem.transfer`;
    `tandem-build-host-schedule` turns it into a `tandem_exec.copy` on a
    copy stream with the events around it. Both buffers have the same shape
    and element type and exactly one device is a GPU.

    Example:

    ```mlir
    tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32>
        from #tandem.device<"/device:CPU:0"> to #tandem.device<"/device:GPU:0">
    ```
  }];
  let arguments = (ins
    Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
    Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$target,
    Tandem_DeviceAttr:$src, Tandem_DeviceAttr:$dst);
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `,` type($target)
    `from` qualified($src) `to` qualified($dst)
  }];
  let hasVerifier = 1;
}

def TandemExec_AllocOp : TandemExec_Op<"alloc",
    [MemoryEffects<[MemWrite<TandemExec_DeviceArena>]>]> {
  let summary = "a buffer in device memory";
  let description = [{
    A buffer of a GPU partition in the device arena. `offset`, in bytes from
    the arena's base, is set by `tandem-plan-device-memory`; lowering needs
    it. The result's memory space is the GPU's `#tandem.device`.

    Example:

    ```mlir
    %0 = tandem_exec.alloc {offset = 256 : i64}
        : memref<4xf32, #tandem.device<"/device:GPU:0">>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def TandemExec_WeightOp : TandemExec_Op<"weight",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     MemoryEffects<[MemWrite<TandemExec_DeviceArena>]>]> {
  let summary = "the device copy of a weight";
  let description = [{
    The device copy of the constant `memref.global` named `global`. Weights
    are uploaded once, when the model is created (the device program's
    weight table), so a run never copies them. `offset` is the copy's place
    in the device arena, set by `tandem-plan-device-memory`.

    Example:

    ```mlir
    %w = tandem_exec.weight @__constant_4xf32 {offset = 0 : i64}
        : memref<4xf32, #tandem.device<"/device:GPU:0">>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, OptionalAttr<I64Attr>:$offset);
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat = "$global attr-dict `:` type($buffer)";
}

def TandemExec_CopyOp : TandemExec_Op<"copy"> {
  let summary = "an asynchronous copy between host and device memory";
  let description = [{
    Copies `bytes` bytes from `source` to `target` on `stream`: `h2d` copies
    a host buffer into a device buffer, `d2h` a device buffer into a host
    buffer. The copy is ordered after earlier work on its stream only; the
    host must not touch the host buffer until an event recorded after it
    has completed.

    Example:

    ```mlir
    tandem_exec.copy %x, %xd on h2d bytes 16
        : memref<4xf32>, memref<4xf32, #tandem.device<"/device:GPU:0">>
    ```
  }];
  let arguments = (ins
    Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
    Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$target,
    TandemExec_StreamAttr:$stream, I64Attr:$bytes);
  let assemblyFormat = [{
    $source `,` $target `on` custom<Stream>($stream) `bytes` $bytes attr-dict `:`
    type($source) `,` type($target)
  }];
  let hasVerifier = 1;
}

def TandemExec_RecordOp : TandemExec_Op<"record", [StreamEffects]> {
  let summary = "records an event after the work issued so far on a stream";
  let description = [{
    The event completes when everything issued on `stream` before it has
    completed.

    Example:

    ```mlir
    %e = tandem_exec.record on h2d
    ```
  }];
  let arguments = (ins TandemExec_StreamAttr:$stream);
  let results = (outs TandemExec_EventType:$event);
  let assemblyFormat = "`on` custom<Stream>($stream) attr-dict";
}

def TandemExec_WaitOp : TandemExec_Op<"wait", [StreamEffects]> {
  let summary = "makes a stream wait for an event";
  let description = [{
    Work issued on `stream` after this op starts only once `event` has
    completed. The host does not block. A stream never waits for an event
    it recorded itself.

    Example:

    ```mlir
    tandem_exec.wait %e on compute
    ```
  }];
  let arguments = (ins TandemExec_EventType:$event, TandemExec_StreamAttr:$stream);
  let assemblyFormat = "$event `on` custom<Stream>($stream) attr-dict";
  let hasVerifier = 1;
}

def TandemExec_HostWaitOp : TandemExec_Op<"host_wait",
    [MemoryEffects<[MemRead, MemWrite, MemWrite<TandemExec_Streams>]>]> {
  let summary = "blocks the host until an event has completed";
  let description = [{
    Needed before host code reads a buffer that a `d2h` copy writes, and
    before the model function returns.

    Example:

    ```mlir
    tandem_exec.host_wait %e
    ```
  }];
  let arguments = (ins TandemExec_EventType:$event);
  let assemblyFormat = "$event attr-dict";
}

def TandemExec_LaunchOp : TandemExec_Op<"launch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "launches a kernel on a stream";
  let description = [{
    Launches `kernel`, a `func.func` with the unit attribute `tandem.kernel`,
    on `stream` with a grid of `grid` blocks of `block` threads (x, y, z).
    `args` are the kernel's arguments, device buffers of the types the
    kernel takes (inputs, then outputs); the kernel receives them as bare
    device pointers.

    Example:

    ```mlir
    tandem_exec.launch @m_k0(%xd, %yd) on compute grid [1, 1, 1]
        block [128, 1, 1] : memref<4xf32, #gpu>, memref<4xf32, #gpu>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Arg<Variadic<AnyStaticShapeMemRef>, "",
                           [MemRead, MemWrite]>:$args,
                       TandemExec_StreamAttr:$stream,
                       DenseI64ArrayAttr:$grid, DenseI64ArrayAttr:$block);
  let assemblyFormat = [{
    $kernel `(` $args `)` `on` custom<Stream>($stream) `grid` $grid `block` $block attr-dict
    (`:` type($args)^)?
  }];
  let hasVerifier = 1;
}

def TandemExec_GemmOp : TandemExec_Op<"gemm",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "an f32 GEMM run by a library, with a generated fallback";
  let description = [{
    For each of `batch` problems p: `c_p = epilogue(op(a_p) * op(b_p)
    [+ bias])`, where op(a_p) is m x k, op(b_p) k x n and c_p m x n, all
    row-major in their buffers with leading dimensions `lda`, `ldb`, `ldc`
    (elements between rows) and batch strides `stride_a`, `stride_b`,
    `stride_c` (elements between problems; 0 broadcasts an operand). With
    `trans_a`, `a` holds each problem k x m (likewise `trans_b`). `bias`
    has n elements, added to every row. `epilogue` is `none`, `relu`,
    `bias`, `bias_relu`, `gelu` or `bias_gelu` (GELU's tanh approximation,
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, cuBLASLt's).
    `precision` is the narrowest format the library may round `a` and `b`
    to inside the product (tensor cores, f32 accumulation): `fp32` (the
    default: none), `tf32`, `bf16` or `fp16` (`tandemc --gpu-precision`).
    `a` and `b` hold f32, or, with `bf16` or `fp16`, both that format
    already rounded (a weight converted at compile time and the other
    operand converted by a kernel before the call,
    `tandem-form-library-gemms`); `c` and `bias` hold f32.
    `c` is overwritten.

    The runtime runs it with cuBLASLt on CUDA and with its CPU sgemm on the
    emulated device and the CPU fallback (`tandem_sched_gemm`). The
    `fallback` launches right after the gemm are its fallback: the launches
    of the generated kernels the GEMM replaced (a zero fill, the
    contraction, the elementwise epilogue), which compute the same `c`.
    They run only when the device has no GEMM library (cuBLASLt not found);
    otherwise the gemm runs and they are skipped. (They are ops of the
    block rather than a region so that bufferisation's deallocation, which
    runs after, needs no region interfaces; buffer lifetimes include
    them.) `kernel`, the contraction's generated kernel, names the GEMM
    (traces).

    Example:

    ```mlir
    tandem_exec.gemm @m_k1_fc1_matmul(%x, %w, bias %b) -> %y on compute
        {batch = 1 : i64, m = 1 : i64, n = 512 : i64, k = 784 : i64,
         lda = 784 : i64, ldb = 512 : i64, ldc = 512 : i64,
         stride_a = 0 : i64, stride_b = 0 : i64, stride_c = 0 : i64,
         epilogue = "bias_relu"}
        : memref<1x784xf32, #gpu>, memref<784x512xf32, #gpu>,
          memref<512xf32, #gpu> -> memref<1x512xf32, #gpu> fallback 3
    tandem_exec.launch @m_k0_fc1_fill(%t) on compute ...
    tandem_exec.launch @m_k1_fc1_matmul(%x, %w, %t) on compute ...
    tandem_exec.launch @m_k2_fc1_generic(%t, %b, %y) on compute ...
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$a,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$b,
                       Arg<Optional<AnyStaticShapeMemRef>, "", [MemRead]>:$bias,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$c,
                       TandemExec_StreamAttr:$stream,
                       I64Attr:$batch, I64Attr:$m, I64Attr:$n, I64Attr:$k,
                       UnitAttr:$trans_a, UnitAttr:$trans_b,
                       I64Attr:$lda, I64Attr:$ldb, I64Attr:$ldc,
                       I64Attr:$stride_a, I64Attr:$stride_b,
                       I64Attr:$stride_c, StrAttr:$epilogue,
                       DefaultValuedStrAttr<StrAttr, "fp32">:$precision,
                       I64Attr:$fallback,
                       DefaultValuedStrAttr<StrAttr, "NCHW">:$layout);
  let assemblyFormat = [{
    $kernel `(` $a `,` $b (`,` `bias` $bias^)? `)` `->` $c `on` custom<Stream>($stream)
    attr-dict `:` type($a) `,` type($b) (`,` type($bias)^)? `->` type($c)
    `fallback` $fallback
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The TANDEM_GEMM_EPILOGUE_* value of `epilogue`, or -1 when unknown.
    int64_t getEpilogueCode();
    /// The TANDEM_GEMM_ALLOW_* flag of `precision` (0 for fp32), or -1
    /// when unknown.
    int64_t getPrecisionFlag();
    /// The 16-bit type `precision` may store `a` and `b` in (bf16, f16),
    /// or null.
    ::mlir::Type get16BitOperandType();
    /// Whether `a` and `b` hold that type rather than f32
    /// (TANDEM_GEMM_16BIT_AB).
    bool has16BitOperands();
    /// The launches after this op that are its fallback, in order (as
    /// many as are there; the verifier checks that all are).
    ::llvm::SmallVector<::mlir::Operation *> getFallbackLaunches();
    /// Whether the buffers put the channels last (`layout = "NHWC"`).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
    /// The shape of the 4-D operand `value` in NCHW (KCRS) order,
    /// whichever the layout.
    ::llvm::SmallVector<int64_t, 4> getNCHWShape(::mlir::Value value);
  }];
}

def TandemExec_ConvOp : TandemExec_Op<"conv",
    [AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "an f32 2-D convolution run by a library, with a generated fallback";
  let description = [{
    `y = activation(conv(x, w) [+ bias] [+ z])` over NCHW buffers: `x` is
    n x c x h x w, `w` k x (c / groups) x r x s, `y` (and the residual `z`)
    n x k x p x q, with `groups`, `strides`, `pads` (symmetric: top and
    left, the same added at the bottom and right) and `dilations` as in
    ONNX Conv; input positions outside `x` read zero. `bias` has k elements,
    one per output channel. `activation` is `none`, `relu`, `relu6`
    (`min(max(x, 0), 6)`), `sigmoid` or `swish` (`x * sigmoid(x)`), applied
    last. `precision` is the narrowest format cuDNN may round `x` and `w`
    to (`fp32`, the default, `tf32`, `bf16` or `fp16`, as for
    `tandem_exec.gemm`; cuDNN's f32 convolutions down-convert to TF32 or
    FP16 only, so `bf16` runs them in TF32). `y` is overwritten.
    `layout = "NHWC"` (default `"NCHW"`) puts the channels last: `x` is
    n x h x w x c, `w` k x r x s x (c / groups) (cuDNN's KRSC), `y` and `z`
    n x p x q x k (`tandem-assign-gpu-layout` makes such convolutions).

    The runtime runs it with cuDNN on CUDA (with a bias, one
    `cudnnConvolutionBiasActivationForward` adds it, the residual and a
    ReLU; without one, `cudnnConvolutionForward` then `cudnnAddTensor` for
    the residual; ReLU6, sigmoid and swish as one more cuDNN call) and with
    the CPU convolution kernels on the emulated device and the CPU fallback
    (`tandem_sched_conv`); the program lists its descriptor so that model
    creation chooses the algorithm and sizes the workspace. The `fallback` launches right
    after the conv are its fallback: the launches of the generated kernels
    it replaced (the convolution, which pads its input and starts from the
    bias or zero itself, and the elementwise epilogue), which compute the
    same `y`. They run only when the device has no convolution library
    (cuDNN not found); otherwise the conv runs and they are skipped (ops of
    the block rather than a region, as for `tandem_exec.gemm`). `kernel`,
    the convolution's generated kernel, names the call (traces).

    Example:

    ```mlir
    tandem_exec.conv @m_k3_conv2(%x, %w) residual %r -> %y on compute
        {groups = 1 : i64, strides = array<i64: 1, 1>,
         pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
         activation = "relu"}
        : memref<1x64x56x56xf32, #gpu>, memref<64x64x3x3xf32, #gpu>
          residual memref<1x64x56x56xf32, #gpu>
          -> memref<1x64x56x56xf32, #gpu> fallback 2
    tandem_exec.launch @m_k3_conv2(%x, %w, %t) on compute ...
    tandem_exec.launch @m_k4_generic(%t, %r, %y) on compute ...
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$x,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$w,
                       Arg<Optional<AnyStaticShapeMemRef>, "", [MemRead]>:$bias,
                       Arg<Optional<AnyStaticShapeMemRef>, "", [MemRead]>:$z,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$y,
                       TandemExec_StreamAttr:$stream,
                       I64Attr:$groups, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       StrAttr:$activation,
                       DefaultValuedStrAttr<StrAttr, "fp32">:$precision,
                       I64Attr:$fallback,
                       DefaultValuedStrAttr<StrAttr, "NCHW">:$layout);
  let assemblyFormat = [{
    $kernel `(` $x `,` $w `)` (`bias` $bias^)? (`residual` $z^)? `->` $y
    `on` custom<Stream>($stream) attr-dict `:` type($x) `,` type($w)
    (`bias` type($bias)^)? (`residual` type($z)^)? `->` type($y)
    `fallback` $fallback
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The TANDEM_CONV_ACT_* value of `activation`, or -1 when unknown.
    int64_t getActivationCode();
    /// The TANDEM_CONV_ALLOW_* flag of `precision` (0 for fp32), or -1
    /// when unknown.
    int64_t getPrecisionFlag();
    /// The launches after this op that are its fallback, in order (as
    /// many as are there; the verifier checks that all are).
    ::llvm::SmallVector<::mlir::Operation *> getFallbackLaunches();
    /// Whether the buffers put the channels last (`layout = "NHWC"`).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
    /// The shape of the 4-D operand `value` in NCHW (KCRS) order,
    /// whichever the layout.
    ::llvm::SmallVector<int64_t, 4> getNCHWShape(::mlir::Value value);
  }];
}

def TandemExec_PartitionBeginOp : TandemExec_Op<"partition_begin", [StreamEffects]> {
  let summary = "opens the span of one partition";
  let description = [{
    Opens the partition `name` (a GPU partition's launches, on `stream`, or
    a CPU partition's host code, without a stream). Each begin is closed by
    a `tandem_exec.partition_end` of the same name later in the same block,
    before the next begin: partitions do not nest. The runtime captures a GPU
    partition's launches (CUDA Graphs) and traces both kinds as spans.

    Example:

    ```mlir
    tandem_exec.partition_begin "m_p0_gpu0" on compute
    tandem_exec.partition_begin "m_p1_cpu0"
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<TandemExec_StreamAttr>:$stream);
  let assemblyFormat = "$name (`on` custom<Stream>($stream)^)? attr-dict";
  let hasVerifier = 1;
}

def TandemExec_PartitionEndOp : TandemExec_Op<"partition_end", [StreamEffects]> {
  let summary = "closes the span of one partition";
  let description = [{
    Closes the partition opened by the `tandem_exec.partition_begin` of the
    same name and stream.

    Example:

    ```mlir
    tandem_exec.partition_end "m_p0_gpu0" on compute
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<TandemExec_StreamAttr>:$stream);
  let assemblyFormat = "$name (`on` custom<Stream>($stream)^)? attr-dict";
  let hasVerifier = 1;
}

#endif // TANDEM_EXEC_OPS_TD
