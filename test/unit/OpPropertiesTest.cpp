//===- OpPropertiesTest.cpp - every tandem op declares its properties -----===//
//
// Walks every registered op of the tandem dialect and checks that it
// declares exactly one fusion role and exactly one cost (FlopsPerElement for
// elementwise ops, DataMovement, its own CostOpInterface formula, or
// ZeroCost), so that a new op cannot be silently mis-classified or costed by
// a default. Then checks that getFusionRole, isTranscendental and
// estimateOpCost read those declarations.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Analysis/OpCost.h"
#include "passes/Fusion/FusionPlanner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::tandem;
namespace traits = mlir::tandem::OpTrait;

namespace {

/// The fusion role traits `name` declares, comma-separated.
std::string roleTraits(RegisteredOperationName name) {
  std::string roles;
  auto add = [&](bool has, const char *role) {
    if (has)
      roles += roles.empty() ? role : std::string(", ") + role;
  };
  add(name.hasTrait<traits::MatrixRole>(), "MatrixRole");
  add(name.hasTrait<traits::ReductionRole>(), "ReductionRole");
  add(name.hasTrait<traits::Elementwise>(), "Elementwise");
  add(name.hasTrait<traits::ElementwiseRole>(), "ElementwiseRole");
  add(name.hasTrait<traits::LayoutRole>(), "LayoutRole");
  add(name.hasTrait<traits::WindowRole>(), "WindowRole");
  add(name.hasTrait<traits::BarrierRole>(), "BarrierRole");
  return roles;
}

TEST(OpPropertiesTest, EveryOpHasOneFusionRoleAndOneCost) {
  MLIRContext context;
  Dialect *tandem = context.getOrLoadDialect<TandemDialect>();
  unsigned ops = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (&name.getDialect() != tandem)
      continue;
    ++ops;
    std::string op = name.getStringRef().str();

    std::string roles = roleTraits(name);
    EXPECT_TRUE(!roles.empty() && roles.find(',') == std::string::npos)
        << op << " has fusion role traits [" << roles
        << "]: give it exactly one of MatrixRole, ReductionRole, "
           "Elementwise/ElementwiseRole, LayoutRole, WindowRole, BarrierRole "
           "(TandemOps.td)";

    bool interface = name.hasInterface<CostOpInterface>();
    bool zero = name.hasTrait<traits::ZeroCost>();
    EXPECT_TRUE(interface != zero)
        << op
        << (interface ? " has both CostOpInterface and ZeroCost"
                      : " has no cost")
        << ": give it exactly one of FlopsPerElement<N>, DataMovement, "
           "ZeroCost or its own CostOpInterface (TandemOpCosts.cpp)";

    bool perElement = name.hasTrait<traits::PerElementCost>();
    bool elementwise = name.hasTrait<traits::Elementwise>() ||
                       name.hasTrait<traits::ElementwiseRole>();
    EXPECT_EQ(perElement, elementwise)
        << op
        << (elementwise ? " is elementwise but is not costed per element "
                          "(FlopsPerElement<N>)"
                        : " is costed per element but is not elementwise");
    EXPECT_FALSE(perElement && name.hasTrait<traits::DataMovement>())
        << op << " has both FlopsPerElement and DataMovement";
    EXPECT_TRUE(!name.hasTrait<traits::Transcendental>() || elementwise)
        << op << " is Transcendental but not elementwise";
  }
  // The filter saw the dialect's ops (a typo in it would pass vacuously).
  EXPECT_TRUE(RegisteredOperationName::lookup("tandem.add", &context));
  EXPECT_GT(ops, 1u);
}

class OpPropertiesReadTest : public ::testing::Test {
protected:
  OpPropertiesReadTest() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<TandemDialect, func::FuncDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToStart(module->getBody());
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  Value constant(ArrayRef<int64_t> shape) {
    return ConstantOp::create(builder, loc,
                              DenseElementsAttr::get(f32(shape), 1.0f));
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

TEST_F(OpPropertiesReadTest, RolesComeFromTraits) {
  Value x = constant({4, 8});
  Value v = constant({8});
  Value bn4 = constant({1, 8, 2, 2});
  EXPECT_EQ(getFusionRole(MatmulOp::create(builder, loc, x, constant({8, 3}))),
            FusionRole::Matrix);
  EXPECT_EQ(getFusionRole(ReduceSumOp::create(builder, loc, x,
                                              ArrayRef<int64_t>{1}, true)),
            FusionRole::Reduction);
  EXPECT_EQ(getFusionRole(AddOp::create(builder, loc, x, x)),
            FusionRole::Elementwise);
  // Elementwise to fusion without the Elementwise trait.
  EXPECT_EQ(getFusionRole(BatchNormOp::create(builder, loc, bn4, v, v, v, v,
                                              builder.getF32FloatAttr(1e-5f),
                                              builder.getI64IntegerAttr(1))),
            FusionRole::Elementwise);
  EXPECT_EQ(getFusionRole(
                TransposeOp::create(builder, loc, x, ArrayRef<int64_t>{1, 0})),
            FusionRole::Layout);
  EXPECT_EQ(getFusionRole(CumSumOp::create(builder, loc, x, 1)),
            FusionRole::Window);
  EXPECT_EQ(getFusionRole(x.getDefiningOp()), FusionRole::Barrier);
  // Ops of other dialects are barriers.
  auto fn =
      func::FuncOp::create(builder, loc, "f", builder.getFunctionType({}, {}));
  OpBuilder inner = OpBuilder::atBlockBegin(fn.addEntryBlock());
  EXPECT_EQ(getFusionRole(func::ReturnOp::create(inner, loc)),
            FusionRole::Barrier);
}

TEST_F(OpPropertiesReadTest, TranscendentalComesFromTheTrait) {
  Value x = constant({4});
  EXPECT_TRUE(isTranscendental(ExpOp::create(builder, loc, x)));
  EXPECT_TRUE(isTranscendental(PowOp::create(builder, loc, x, x)));
  EXPECT_TRUE(isTranscendental(RsqrtOp::create(builder, loc, x)));
  EXPECT_FALSE(isTranscendental(MulOp::create(builder, loc, x, x)));
  EXPECT_FALSE(isTranscendental(ReluOp::create(builder, loc, x)));
}

TEST_F(OpPropertiesReadTest, CostsComeFromTheOpDefinitions) {
  Value x = constant({4, 8});
  // FlopsPerElement: the base default and the overrides.
  EXPECT_EQ(estimateOpCost(AddOp::create(builder, loc, x, x)).flops, 32);
  EXPECT_EQ(estimateOpCost(ExpOp::create(builder, loc, x)).flops, 12 * 32);
  EXPECT_EQ(estimateOpCost(SigmoidOp::create(builder, loc, x)).flops, 14 * 32);
  EXPECT_EQ(estimateOpCost(DivOp::create(builder, loc, x, x)).flops, 4 * 32);
  EXPECT_EQ(ExpOp::getFlopsPerElement(), 12);

  // A formula: 2 * K per output element, at the matrix peak.
  OpCost matmul =
      estimateOpCost(MatmulOp::create(builder, loc, x, constant({8, 3})));
  EXPECT_EQ(matmul.flops, 2.0 * 8 * 4 * 3);
  EXPECT_TRUE(matmul.isMatrix);
  EXPECT_EQ(matmul.bytesRead, (32 + 24) * 4);
  EXPECT_EQ(matmul.bytesWritten, 12 * 4);

  // Data movement: no arithmetic, but its traffic.
  OpCost transpose = estimateOpCost(
      TransposeOp::create(builder, loc, x, ArrayRef<int64_t>{1, 0}));
  EXPECT_EQ(transpose.flops, 0);
  EXPECT_FALSE(transpose.isMatrix);
  EXPECT_EQ(transpose.bytes(), 2 * 32 * 4);

  // ZeroCost: not even the bytes.
  OpCost reshape =
      estimateOpCost(ReshapeOp::create(builder, loc, x, ArrayRef<int64_t>{32}));
  EXPECT_EQ(reshape.flops, 0);
  EXPECT_EQ(reshape.bytes(), 0);
  EXPECT_EQ(estimateOpCost(x.getDefiningOp()).bytes(), 0);
}

} // namespace
