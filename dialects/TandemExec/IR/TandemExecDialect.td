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
    memory space. Streams are numbered as the runtime numbers them:
    `compute` (0), `h2d` (1) and `d2h` (2). Events are SSA values of type
    `!tandem_exec.event`, defined by `tandem_exec.record`.

    `tandem-build-host-schedule` produces the dialect from the bufferised
    model, `tandem-plan-device-memory` gives every device buffer its offset
    in the device arena, and `tandem-lower-host-schedule` turns the ops into
    calls of the runtime.
  }];
  let dependentDialects = ["::mlir::tandem::TandemDialect"];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the event type.
    void registerTypes();

    /// Name of the integer attribute on a model function: the device arena
    /// its schedule needs, in bytes.
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

def TandemExec_Stream : I32EnumAttr<"Stream", "a stream of the device", [
    I32EnumAttrCase<"Compute", 0, "compute">,
    I32EnumAttrCase<"H2D", 1, "h2d">,
    I32EnumAttrCase<"D2H", 2, "d2h">
  ]> {
  let cppNamespace = "::mlir::tandem::exec";
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
