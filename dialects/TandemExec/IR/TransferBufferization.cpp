//===- TransferBufferization.cpp - bufferising tandem.transfer ------------===//
//
// One-shot bufferisation of `tandem.transfer`: each input is copied into a
// fresh buffer by a `tandem_exec.transfer`, which the host schedule turns
// into a copy on a stream.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"
#include "dialects/TandemExec/IR/TandemExecOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::tandem;

namespace {
/// A transfer reads its inputs and defines new buffers: results never alias
/// operands, since they live on another device.
struct TransferOpInterface
    : BufferizableOpInterface::ExternalModel<TransferOpInterface,
                                             tandem::TransferOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto transfer = cast<tandem::TransferOp>(op);
    SmallVector<Value> buffers;
    for (Value input : transfer.getInputs()) {
      FailureOr<Value> source = getBuffer(rewriter, input, options, state);
      if (failed(source))
        return failure();
      auto tensor = cast<RankedTensorType>(input.getType());
      auto type = MemRefType::get(tensor.getShape(), tensor.getElementType());
      rewriter.setInsertionPoint(op);
      Value target = memref::AllocOp::create(rewriter, op->getLoc(), type);
      exec::TransferOp::create(rewriter, op->getLoc(), *source, target,
                               transfer.getSrc(), transfer.getDst());
      buffers.push_back(target);
    }
    replaceOpWithBufferizedValues(rewriter, op, buffers);
    return success();
  }
};
} // namespace

void mlir::tandem::exec::registerTransferBufferization(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TandemDialect *) {
    tandem::TransferOp::attachInterface<TransferOpInterface>(*ctx);
    ctx->loadDialect<exec::TandemExecDialect, memref::MemRefDialect>();
  });
}
