//===- TandemExecDialect.td - the host schedule dialect ----*- tablegen -*-===//
//
// The `tandem_exec` dialect: a model's host schedule of GPU work. Streams,
// events, copies between host and device memory, kernel launches and
// partition markers, between bufferisation and the calls of the runtime's
// tandem_sched_* functions.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_EXEC_DIALECT_TD
#define TANDEM_EXEC_DIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def TandemExec_Dialect : Dialect {
  let name = "tandem_exec";
  let cppNamespace = "::mlir::tandem::exec";
  let summary = "the host schedule of a model with GPU partitions";
  let description = [{
    `tandem_exec` spells out what the host does to run a model whose
    partitions include GPU partitions (see docs/GPU.md): which buffer is
    copied between host and device memory on which stream, which kernel is
    launched with which geometry, which stream waits for which event, and
    where the host blocks.

    Device buffers are memrefs whose memory space is the GPU's
    `#tandem.device` attribute, e.g.
    `memref<4xf32, #tandem.device<"/device:GPU:0">>`; host buffers have no
    memory space. Each GPU of the schedule has three streams, `compute`,
    `h2d` and `d2h` (see `#tandem_exec.stream`); ops name GPU 0's as
    `compute` and GPU d's as `compute[d]`. Events are SSA values of type
    `!tandem_exec.event`, defined by `tandem_exec.record`.

    `tandem-build-host-schedule` produces the dialect from the bufferised
    model, `tandem-plan-device-memory` gives every device buffer its offset
    in the device arena, and `tandem-lower-host-schedule` turns the ops into
    calls of the runtime.
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the event type and the stream attribute.
    void registerTypes();
    void registerAttributes();

    /// Name of the i64 array attribute on a model function: the device
    /// arena its schedule needs on each GPU (GPU 0 first), in bytes.
    static constexpr ::llvm::StringLiteral getDeviceArenaBytesAttrName() {
      return ::llvm::StringLiteral("tandem_exec.device_arena_bytes");
    }

    /// Name of the dictionary attribute on the module that
    /// tandem-lower-host-schedule leaves for the artifact: what the device
    /// program needs (see codegen/Artifact/DeviceProgram.h).
    static constexpr ::llvm::StringLiteral getProgramAttrName() {
      return ::llvm::StringLiteral("tandem_exec.program");
    }
  }];
}

def TandemExec_StreamKind : I32EnumAttr<"StreamKind",
    "one of the three streams of a GPU", [
    I32EnumAttrCase<"Compute", 0, "compute">,
    I32EnumAttrCase<"H2D", 1, "h2d">,
    I32EnumAttrCase<"D2H", 2, "d2h">
  ]> {
  let cppNamespace = "::mlir::tandem::exec";
  let genSpecializedAttr = 0;
}

def TandemExec_StreamAttr : AttrDef<TandemExec_Dialect, "Stream"> {
  let mnemonic = "stream";
  let summary = "one stream of one GPU";
  let description = [{
    Each GPU of a schedule (`/device:GPU:d`) has three streams: `compute`
    runs its kernels and library calls, `h2d` its copies from the host and
    `d2h` its copies to the host. The runtime numbers them as abi.h does:
    `3 * device + kind` (kind 0 compute, 1 h2d, 2 d2h). The ops print
    GPU 0's stream as `compute` and GPU 1's as `compute[1]`; the attribute
    on its own is `#tandem_exec.stream<compute>` or
    `#tandem_exec.stream<compute, 1>`.
  }];
  let parameters = (ins
    EnumParameter<TandemExec_StreamKind>:$kind,
    DefaultValuedParameter<"unsigned", "0">:$device
  );
  let assemblyFormat = "`<` $kind (`,` $device^)? `>`";
  let extraClassDeclaration = [{
    /// The stream's number in the runtime's host schedule (abi.h).
    int32_t getRuntimeNumber() const {
      return static_cast<int32_t>(getDevice() * 3 +
                                  static_cast<unsigned>(getKind()));
    }
    bool isCompute() const { return getKind() == StreamKind::Compute; }
    /// "compute", or "compute[1]" for GPU 1.
    std::string getLabel() const;
  }];
}

def TandemExec_EventType : TypeDef<TandemExec_Dialect, "Event"> {
  let mnemonic = "event";
  let summary = "a point in one stream's work";
  let description = [{
    Defined by `tandem_exec.record`; streams (`tandem_exec.wait`) and the
    host (`tandem_exec.host_wait`) wait for it. The runtime numbers events
    0..num_events-1 per model, in the order of their records.
  }];
}

#endif // TANDEM_EXEC_DIALECT_TD
