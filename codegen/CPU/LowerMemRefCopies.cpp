//===- LowerMemRefCopies.cpp - memref.copy -> linalg.copy -----------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMLOWERMEMREFCOPIES
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;

namespace {
struct LowerMemRefCopiesPass
    : tandem::impl::TandemLowerMemRefCopiesBase<LowerMemRefCopiesPass> {
  void runOnOperation() override {
    llvm::SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
