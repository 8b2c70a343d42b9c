//===- TandemOpsTest.cpp - building tandem ops from C++ -------------------===//
//
// Builds ops through the generated builders, which infer result types, and
// checks the inferred types, folding and the device attribute.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

class TandemOpsTest : public ::testing::Test {
protected:
  TandemOpsTest() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<TandemDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToStart(module->getBody());
  }

  Value constant(ArrayRef<int64_t> shape, float value) {
    auto type = RankedTensorType::get(shape, builder.getF32Type());
    return ConstantOp::create(builder, loc,
                              DenseElementsAttr::get(type, value));
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TandemOpsTest, Conv2DInfersNCHWResult) {
  Value x = constant({1, 3, 224, 224}, 1.0f);
  Value w = constant({64, 3, 7, 7}, 0.5f);
  auto conv = Conv2DOp::create(
      builder, loc, x, w, /*bias=*/Value(), ArrayRef<int64_t>{2, 2},
      ArrayRef<int64_t>{3, 3, 3, 3}, ArrayRef<int64_t>{1, 1}, /*groups=*/1);
  EXPECT_EQ(conv.getType(), f32({1, 64, 112, 112}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TandemOpsTest, MatmulBroadcastsBatchDims) {
  Value a = constant({4, 1, 8, 16}, 1.0f);
  Value b = constant({3, 16, 2}, 1.0f);
  auto mm = MatmulOp::create(builder, loc, a, b);
  EXPECT_EQ(mm.getType(), f32({4, 3, 8, 2}));
}

TEST_F(TandemOpsTest, InferenceFailureIsReported) {
  Value a = constant({2, 3}, 1.0f);
  Value b = constant({4}, 1.0f);
  SmallVector<Type> types;
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(AddOp::inferReturnTypes(
      &context, loc, ValueRange{a, b}, /*attributes=*/nullptr,
      /*properties=*/nullptr, /*regions=*/{}, types)));
  EXPECT_NE(message.find("'tandem.add' op operands are not "
                         "broadcast-compatible"),
            std::string::npos)
      << message;
}

TEST_F(TandemOpsTest, SmallConstantsFold) {
  Value a = constant({2, 2}, 1.5f);
  Value b = constant({2}, 2.0f);
  auto add = AddOp::create(builder, loc, a, b);
  SmallVector<OpFoldResult> folded;
  ASSERT_TRUE(succeeded(add->fold(folded)));
  ASSERT_EQ(folded.size(), 1u);
  auto attr = dyn_cast<DenseElementsAttr>(cast<Attribute>(folded[0]));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getType(), f32({2, 2}));
  EXPECT_EQ(attr.getSplatValue<float>(), 3.5f);
}

TEST_F(TandemOpsTest, LargeConstantsDoNotFold) {
  // Non-splat constants above the folding limit stay as they are, so that a
  // weight is never duplicated by constant folding.
  auto type = f32({2048});
  SmallVector<float> values(2048);
  for (auto [i, v] : llvm::enumerate(values))
    v = static_cast<float>(i);
  Value big = ConstantOp::create(
      builder, loc, DenseElementsAttr::get(type, ArrayRef(values)));
  auto neg = NegOp::create(builder, loc, big);
  SmallVector<OpFoldResult> folded;
  EXPECT_TRUE(failed(neg->fold(folded)));

  // The same op on a small constant folds.
  Value small = constant({4}, 2.0f);
  auto negSmall = NegOp::create(builder, loc, small);
  folded.clear();
  ASSERT_TRUE(succeeded(negSmall->fold(folded)));
  EXPECT_EQ(cast<DenseElementsAttr>(cast<Attribute>(folded[0]))
                .getSplatValue<float>(),
            -2.0f);
}

TEST_F(TandemOpsTest, DeviceAttributeRoundTrips) {
  auto device = DeviceAttr::get(&context, DeviceName::Kind::GPU, 1);
  EXPECT_EQ(device.getName(), "/device:GPU:1");
  Value a = constant({2}, 1.0f);
  Operation *relu = ReluOp::create(builder, loc, a);
  EXPECT_FALSE(getDevice(relu));
  setDevice(relu, device);
  EXPECT_EQ(getDevice(relu), device);
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
