//===- FlattenEmptyArguments.cpp - empty memref arguments become 1-D ------===//
//
// A model may take or return tensors with a zero-size dim. LLVM's bare-pointer
// calling convention, which the model function uses, rejects a memref such as
// memref<2x0xf32> (its row-major strides are not canonical), and the function
// would stay unlowered. Each such argument of a public function becomes
// memref<0xf32>, expanded to its old type at the entry for any use; the
// pointer the caller passes is never dereferenced.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFLATTENEMPTYARGUMENTS
#include "codegen/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

namespace {

struct FlattenEmptyArgumentsPass
    : mlir::tandem::impl::TandemFlattenEmptyArgumentsBase<
          FlattenEmptyArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.isPublic() || func.isExternal())
      return;
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> inputs(func.getArgumentTypes());
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 0 ||
          type.getRank() == 1 || !type.getLayout().isIdentity())
        continue;
      auto flat = MemRefType::get({0}, type.getElementType(), AffineMap(),
                                  type.getMemorySpace());
      arg.setType(flat);
      inputs[arg.getArgNumber()] = flat;
      if (arg.use_empty())
        continue;
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      Value view = memref::ExpandShapeOp::create(
          b, func.getLoc(), type, arg, ArrayRef<ReassociationIndices>{all});
      arg.replaceAllUsesExcept(view, view.getDefiningOp());
    }
    func.setFunctionType(
        FunctionType::get(&getContext(), inputs, func.getResultTypes()));
  }
};

} // namespace
