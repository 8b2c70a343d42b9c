//===- Passes.h - host schedule passes --------------------------*- C++ -*-===//
//
// Declarations of the host schedule passes (generated from
// codegen/HostSchedule/Passes.td), their registration and the pipelines the
// driver builds from them.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_HOSTSCHEDULE_PASSES_H
#define TANDEM_CODEGEN_HOSTSCHEDULE_PASSES_H

#include "dialects/TandemExec/IR/TandemExecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::tandem {

#define GEN_PASS_DECL
#include "codegen/HostSchedule/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/HostSchedule/Passes.h.inc"

/// Adds, after bufferisation (`buffer-results-to-out-params`) and before
/// `tandem-plan-memory`, the passes that build the host schedule and plan
/// the device arenas: `tandem-build-host-schedule`, then what
/// `deviceSchedulePasses` adds (each device target's passes on the built
/// schedule, such as the CUDA target's `tandem-form-library-gemms`), then
/// `tandem-plan-device-memory`.
void buildHostSchedulePipeline(
    OpPassManager &pm,
    llvm::function_ref<void(OpPassManager &)> deviceSchedulePasses = {});

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_HOSTSCHEDULE_PASSES_H
