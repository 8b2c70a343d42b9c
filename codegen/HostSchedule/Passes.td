//===- Passes.td - host schedule passes --------------------*- tablegen -*-===//
//
// From the bufferised model with GPU partitions to calls of the runtime's
// tandem_sched_* functions (docs/GPU.md, steps 3-5).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_HOSTSCHEDULE_PASSES_TD
#define TANDEM_HOSTSCHEDULE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TandemBuildHostSchedule : Pass<"tandem-build-host-schedule", "ModuleOp"> {
  let summary = "turns transfers and GPU partition calls into a stream schedule";
  let description = [{
    Runs on the bufferised module (after `buffer-results-to-out-params`,
    before `tandem-plan-memory`). In every function that calls a GPU
    partition (a function with a GPU `tandem.device`) or holds a
    `tandem_exec.transfer`:

    * each host-to-device transfer becomes a `tandem_exec.copy` on `h2d`
      into a device buffer (`tandem_exec.alloc`), followed by a
      `tandem_exec.record`; copies of function arguments are hoisted to the
      top of the function, so they overlap earlier work;
    * each GPU partition call is inlined: its kernel calls (`func.call` of a
      `tandem.kernel` function carrying `tandem.launch_dims`) become
      `tandem_exec.launch`es on `compute` between `partition_begin` and
      `partition_end`; its `memref.alloc`s become device buffers and its
      `memref.get_global`s `tandem_exec.weight`s (uploaded once at creation,
      never copied per run); before the first launch that reads a buffer an
      `h2d` copy wrote, `compute` waits for that copy's event;
    * each device-to-host transfer becomes a record on `compute`, a wait of
      `d2h` for it, a `tandem_exec.copy` on `d2h` and a record on `d2h`;
    * the host waits (`tandem_exec.host_wait`) for a `d2h` event right
      before the first host op that touches the copied buffer, and for every
      event it has not waited for before returning;
    * calls of CPU partitions are inlined between `partition_begin` and
      `partition_end` without a stream. Host code that is already inline
      stays as it is.

    Before:

    ```mlir
    %xd = memref.alloc() : memref<4xf32>
    tandem_exec.transfer %x, %xd : memref<4xf32>, memref<4xf32> from #cpu to #gpu
    %yd = memref.alloc() : memref<4xf32>
    call @m_p0_gpu0(%xd, %yd) : (memref<4xf32>, memref<4xf32>) -> ()
    tandem_exec.transfer %yd, %y : memref<4xf32>, memref<4xf32> from #gpu to #cpu
    ```

    After:

    ```mlir
    %xd = tandem_exec.alloc : memref<4xf32, #gpu>
    tandem_exec.copy %x, %xd on h2d bytes 16 : memref<4xf32>, memref<4xf32, #gpu>
    %0 = tandem_exec.record on h2d
    %yd = tandem_exec.alloc : memref<4xf32, #gpu>
    tandem_exec.partition_begin "m_p0_gpu0" on compute
    tandem_exec.wait %0 on compute
    tandem_exec.launch @m_k0(%xd, %yd) on compute grid [1, 1, 1] block [4, 1, 1] : ...
    tandem_exec.partition_end "m_p0_gpu0" on compute
    %1 = tandem_exec.record on compute
    tandem_exec.wait %1 on d2h
    tandem_exec.copy %yd, %y on d2h bytes 16 : memref<4xf32, #gpu>, memref<4xf32>
    %2 = tandem_exec.record on d2h
    tandem_exec.host_wait %2
    return
    ```
  }];
  let dependentDialects = ["::mlir::tandem::exec::TandemExecDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TandemFormLibraryGemms : Pass<"tandem-form-library-gemms", "ModuleOp"> {
  let summary = "turns contraction launches into library GEMMs with fused epilogues";
  let description = [{
    Runs on the host schedule (after `tandem-build-host-schedule`, before
    `tandem-plan-device-memory`). A `tandem_exec.launch` of a kernel that is
    one f32 multiply-accumulate contraction (`linalg.matmul`,
    `linalg.batch_matmul`, their transposed forms, or a `linalg.generic`
    of the same shape) over whole buffers with row-major rows, one batch
    dimension at most, becomes a `tandem_exec.gemm` when its output starts
    at zero (the library GEMM overwrites it): the kernel zero-fills it
    before the contraction (a prologue `tandem-outline-kernels` moved into
    it, as for every lowered MatMul), or the launch before it that touches
    the output is a zero fill of it (shown below). The launch right after it (device buffer
    definitions aside) is folded into the epilogue when it only reads the
    product and is `+ bias` (a vector along N), `max(x, 0)`, or both, and
    nothing else reads the product. The replaced launches follow the gemm,
    in order, as its `fallback` launches (run only when the device has no
    GEMM library). Everything else stays a generated kernel.

    Before:

    ```mlir
    tandem_exec.launch @k0_fill(%t) on compute grid [2, 1, 1] block [256, 1, 1] : ...
    tandem_exec.launch @k1_matmul(%x, %w, %t) on compute grid [2, 1, 1] block [256, 1, 1] : ...
    %y = tandem_exec.alloc : memref<1x512xf32, #gpu>
    tandem_exec.launch @k2_generic(%t, %b, %y) on compute grid [2, 1, 1] block [256, 1, 1] : ...
    ```

    After:

    ```mlir
    %y = tandem_exec.alloc : memref<1x512xf32, #gpu>
    tandem_exec.gemm @k1_matmul(%x, %w, bias %b) -> %y on compute
        {batch = 1 : i64, m = 1 : i64, n = 512 : i64, k = 784 : i64,
         epilogue = "bias_relu", ...} : ... fallback 3
    tandem_exec.launch @k0_fill(%t) ...
    tandem_exec.launch @k1_matmul(%x, %w, %t) ...
    tandem_exec.launch @k2_generic(%t, %b, %y) ...
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "narrowest format cuBLASLt may round the operands to: fp32, "
           "tf32, bf16 or fp16 (tandemc --gpu-precision)">
  ];
  let dependentDialects = ["::mlir::tandem::exec::TandemExecDialect"];
}

def TandemNarrowGemmOperands : Pass<"tandem-narrow-gemm-operands", "ModuleOp"> {
  let summary = "stores the operands of bf16 and fp16 library GEMMs in 16 bits";
  let description = [{
    Runs on the host schedule (after `tandem-form-library-gemms`). A
    `tandem_exec.gemm` of precision `bf16` or `fp16` one of whose operands
    is a weight (`tandem_exec.weight`) and the other a whole f32 buffer
    reads both in that 16-bit format instead (`TANDEM_GEMM_16BIT_AB`):

    - the weight's constant `memref.global` is converted here, once, at
      compile time (round to nearest even, as the tensor cores would round
      it in the call), into a new global `@<name>_bf16` (or `_f16`) of half
      the bytes, which the device holds instead of the f32 one;
    - the other operand is converted by a generated kernel
      (`@tandem_f32_to_bf16_<shape>`, one thread per element) launched
      right before the gemm into a new device buffer; gemms that read the
      same buffer share the copy when nothing writes the buffer in between.

    The results do not change: the library rounded the operands to the
    same format inside the call before; it now reads them rounded. The
    gemm's fallback launches (the generated kernels, run without cuBLASLt)
    read the weight in f32: a launch widening the 16-bit copy into a
    temporary becomes their first. A weight that anything else reads (a
    CPU partition, another kernel, a gemm of another precision) stays f32,
    as do gemms with no weight operand or two (attention's products).

    Before:

    ```mlir
    %w = tandem_exec.weight @w : memref<8x5xf32, #gpu>
    tandem_exec.gemm @k1_matmul(%x, %w) -> %y on compute {precision = "bf16", ...}
        : memref<3x8xf32, #gpu>, memref<8x5xf32, #gpu> -> memref<3x5xf32, #gpu> fallback 1
    tandem_exec.launch @k1_matmul(%x, %w, %y) ...
    ```

    After:

    ```mlir
    %w = tandem_exec.weight @w_bf16 : memref<8x5xbf16, #gpu>
    %x16 = tandem_exec.alloc : memref<3x8xbf16, #gpu>
    tandem_exec.launch @tandem_f32_to_bf16_3_8(%x, %x16) ...
    %t = tandem_exec.alloc : memref<8x5xf32, #gpu>
    tandem_exec.gemm @k1_matmul(%x16, %w) -> %y on compute {precision = "bf16", ...}
        : memref<3x8xbf16, #gpu>, memref<8x5xbf16, #gpu> -> memref<3x5xf32, #gpu> fallback 2
    tandem_exec.launch @tandem_bf16_to_f32_8_5(%w, %t) ...
    tandem_exec.launch @k1_matmul(%x, %t, %y) ...
    ```
  }];
  let options = [
    Option<"launchBytes", "launch-bytes", "int64_t", /*default=*/"16777216",
           "bytes a GPU moves in the time one kernel launch costs (16 MiB: "
           "4 us at about 4 TB/s, the H100/H200 cost presets); a conversion "
           "launch is added only when the gemms it feeds save more weight "
           "bytes than that plus the conversion's own traffic">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tandem::exec::TandemExecDialect"];
}

def TandemFormLibraryConvs : Pass<"tandem-form-library-convs", "ModuleOp"> {
  let summary = "turns convolution launches into library convolutions with fused epilogues";
  let description = [{
    Runs on the host schedule (after `tandem-form-library-gemms`, before
    `tandem-plan-device-memory`). A `tandem_exec.launch` of a kernel that is
    one f32 2-D NCHW convolution (`linalg.conv_2d_nchw_fchw`,
    `linalg.depthwise_conv_2d_nchw_chw`, or `linalg.conv_2d_ngchw_gfchw`
    over reshapes for other group counts) becomes a `tandem_exec.conv`. The
    kernel may pad its input itself (a zero-filled buffer the argument is
    copied into at offsets [0, 0, top, left]: the conv's `pads`, which must
    reproduce the output size symmetrically) and must start its output
    from zero or from a bias argument broadcast along the channels (the
    conv's `bias`); a ReLU or ReLU6 tandem-fuse-elementwise folded into the
    convolution (`tandem.epilogue`) becomes its `activation`. Without a
    fused activation, the launch right after it (device buffer definitions
    aside) is folded into the epilogue when it only reads the product and
    is `+ z` (a residual of the same shape: the conv's `z`), `max(x, 0)`,
    `min(max(x, 0), 6)`, a sigmoid `1 / (exp(-x) + 1)` or swish
    `x * sigmoid(x)` (as tandem.sigmoid and SiLU lower), or the sum then
    one of them, and nothing else reads the product. The replaced launches follow the conv, in order, as
    its `fallback` launches (run only when the device has no convolution
    library). An input argument the kernel reads (or pads) through a
    reshape to 4-D (a channel shuffle's 5-D view) reaches the conv as one
    `memref.collapse_shape` or `expand_shape` of the launch's buffer, the
    same bytes. Everything else stays a generated kernel.

    Before:

    ```mlir
    tandem_exec.launch @k3_conv2(%x, %w, %t) on compute grid [784, 1, 1] block [256, 1, 1] : ...
    %y = tandem_exec.alloc : memref<1x64x56x56xf32, #gpu>
    tandem_exec.launch @k4_generic(%t, %r, %y) on compute grid [784, 1, 1] block [256, 1, 1] : ...
    ```

    After:

    ```mlir
    %y = tandem_exec.alloc : memref<1x64x56x56xf32, #gpu>
    tandem_exec.conv @k3_conv2(%x, %w) residual %r -> %y on compute
        {activation = "relu", groups = 1 : i64, pads = array<i64: 1, 1>, ...}
        : ... fallback 2
    tandem_exec.launch @k3_conv2(%x, %w, %t) ...
    tandem_exec.launch @k4_generic(%t, %r, %y) ...
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "narrowest format cuDNN may round the operands to: fp32, tf32, "
           "bf16 (runs as tf32) or fp16 (tandemc --gpu-precision)">
  ];
  let dependentDialects = ["::mlir::tandem::exec::TandemExecDialect"];
}

def TandemPlanDeviceMemory : Pass<"tandem-plan-device-memory", "ModuleOp"> {
  let summary = "gives every device buffer a static offset in the device arena";
  let description = [{
    Places the `tandem_exec.alloc` and `tandem_exec.weight` buffers of each
    scheduled function in one device arena, like `tandem-plan-memory` does
    for the host arena (largest first, lowest aligned free offset among
    buffers whose lifetimes overlap):

    * weights come first and live for the whole run (one slot per global);
    * buffers that a copy writes or reads (`h2d` targets, `d2h` sources) are
      live for the whole run as well, since the copy streams run ahead of
      or behind the compute stream;
    * every other buffer is only touched by launches on `compute`, which run
      in program order, so it lives from its first use to its last, its
      views' uses (a reshape a library conv reads) included.

    Sets `offset` on every buffer op and `tandem_exec.device_arena_bytes` on
    the function.

    Before: `%0 = tandem_exec.alloc : memref<4xf32, #gpu>`

    After: `%0 = tandem_exec.alloc {offset = 64 : i64} : memref<4xf32, #gpu>`
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "alignment of every buffer, bytes (a power of two)">
  ];
}

def TandemKernelReport : Pass<"tandem-kernel-report", "ModuleOp"> {
  let summary = "writes the static cost of every GPU kernel, library call and copy";
  let description = [{
    For each model with a host schedule (after `tandem-plan-device-memory`),
    lists in schedule order every kernel launch, library GEMM and host
    copy with its GPU, its arithmetic (FLOPs: each linalg op's iteration
    space times the arithmetic ops of its body; 2 m n k per GEMM problem),
    the global memory it moves (every buffer argument read or written
    once), the arithmetic intensity, and its roofline time on the GPU's
    preset from `targets` (launch overhead plus the larger of compute and
    memory time, as the placement cost model estimates; copies: the host
    link's latency plus bytes over its bandwidth), and whether compute or
    memory bounds it. A GEMM's fallback kernels (run only without
    cuBLASLt) are listed but not counted. Then the totals per GPU. So the
    GPU plan can be judged without a GPU; nothing is measured.

    `report` is the output: `-` prints a table on stdout, a path ending in
    `.json` gets JSON, any other path the table. The module is unchanged.
  }];
  let options = [
    Option<"report", "report", "std::string", /*default=*/"\"-\"",
           "where to write the report ('-': stdout; FILE.json: JSON)">,
    Option<"targets", "targets", "std::string", /*default=*/"\"cpu,gpu\"",
           "the devices, as tandemc --target names them">,
    Option<"deviceConfig", "device-config", "std::string", /*default=*/"\"\"",
           "JSON file overriding device numbers (tandemc --device-config)">
  ];
}

def TandemLowerHostSchedule : Pass<"tandem-lower-host-schedule", "ModuleOp"> {
  let summary = "lowers the host schedule to calls of the tandem_sched_* runtime";
  let description = [{
    Turns every `tandem_exec` op into a call of the runtime's
    `tandem_sched_*` functions (docs/GPU.md), with the function's trailing
    `!llvm.ptr {tandem.exec_ctx}` argument (added here when
    `tandem-call-cpu-kernels` has not added it yet). A device pointer is
    `tandem_sched_device_base(ctx) + offset`; a host pointer is the
    memref's aligned pointer plus its offset. Kernels are numbered in the
    order of their first launch, events in the order of their records and
    partitions in the order of their begins, per model.

    A `tandem_exec.gemm` becomes a call of `tandem_sched_gemm` with a
    constant `tandem_gemm_desc_t` (a private global of i64s), its kernel's
    number and the device pointers; when that returns 0 (no GEMM library
    on the device), an `scf.if` runs its fallback launches (the `fallback`
    launches that follow it, moved into the `scf.if`). A `tandem_exec.conv`
    likewise becomes a call of `tandem_sched_conv` with a constant
    `tandem_conv_desc_t` and the device pointers of x, w, y, the bias and
    the residual z (0 when absent), its fallback launches in an `scf.if`.

    What the artifact needs about the program (kernels and their arities,
    partition names, the number of events, the device arena and the weight
    table) is recorded in the module attribute `tandem_exec.program`, which
    `readDeviceProgram` reads.

    Before:

    ```mlir
    tandem_exec.launch @k(%a, %b) on compute grid [2, 1, 1] block [64, 1, 1] : ...
    ```

    After:

    ```mlir
    %base = llvm.call @tandem_sched_device_base(%ctx) : (!llvm.ptr) -> i64
    ...
    llvm.call @tandem_sched_launch(%ctx, %c0, %k, %c2, %c1, %c1, %c64, %c1, %c1, %args)
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TandemBuildCPUTwins : Pass<"tandem-build-cpu-twins", "ModuleOp"> {
  let summary = "wraps every lowered GPU kernel as a tandem_cpu_kernel_fn";
  let description = [{
    Runs after `convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}`. For
    every `llvm.func` carrying `tandem.kernel` (a kernel function compiled
    by the CPU pipeline: one pointer per memref), adds
    `void <kernel>__twin(void **args)` that loads the i-th device pointer
    from `*args[i]` and calls the kernel. The device program's kernel table
    points at the twins; the emulated device and the CPU fallback run them.

    After:

    ```mlir
    llvm.func @k__twin(%args: !llvm.ptr) {
      %p0 = llvm.getelementptr %args[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
      %s0 = llvm.load %p0 : !llvm.ptr -> !llvm.ptr
      %a0 = llvm.load %s0 : !llvm.ptr -> !llvm.ptr
      ...
      llvm.call @k(%a0, %a1) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TANDEM_HOSTSCHEDULE_PASSES_TD
