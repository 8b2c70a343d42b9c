//===- DeadBlobTest.cpp - rewritten weights free their original blobs
//------===//
//
// tandem-normalize-bias transposes a Gemm's transB weight into a new
// dense_resource blob; with the driver's DeadBlobInstrumentation the
// original's bytes are freed (they would stay in the context until it is
// destroyed, a copy of the weight for the rest of the compile), while a
// blob something still uses keeps its data. A large weight is freed by the
// rewrite itself, and new weights take over their buffers (ConstantData.h).
//
//===----------------------------------------------------------------------===//

#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Optimize/ConstantData.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// A dense_resource f32 constant `name` of `shape`, every element 0.25.
DenseResourceElementsAttr blobAttr(OpBuilder &b, StringRef name,
                                   ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<float> data(n, 0.25f);
  return DenseResourceElementsAttr::get(
      RankedTensorType::get(shape, b.getF32Type()), name,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(
          ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                         data.size() * sizeof(float)),
          alignof(int64_t)));
}

/// Runs tandem-normalize-bias on `module` (nested on its functions when
/// `nested`) under a DeadBlobInstrumentation; the bytes that freed after
/// the pass, or std::nullopt when the pass failed.
std::optional<size_t> normalizeBias(MLIRContext &context, ModuleOp module,
                                    bool nested = false) {
  PassManager pm(&context);
  auto instrumentation = std::make_unique<DeadBlobInstrumentation>();
  DeadBlobInstrumentation *blobs = instrumentation.get();
  pm.addInstrumentation(std::move(instrumentation));
  if (nested)
    pm.addNestedPass<func::FuncOp>(createTandemNormalizeBias());
  else
    pm.addPass(createTandemNormalizeBias());
  if (failed(pm.run(module)))
    return std::nullopt;
  return blobs->freedBytes();
}

TEST(DeadBlobTest, TransposedWeightFreesItsOriginal) {
  MLIRContext context;
  context.loadDialect<TandemDialect, func::FuncDialect>();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToStart(module->getBody());
  // y = x * w^T (w is [N, K], transB) and z = u (kept: a function result).
  DenseResourceElementsAttr w = blobAttr(b, "w", {16, 32});
  DenseResourceElementsAttr u = blobAttr(b, "u", {4, 8});
  auto x = RankedTensorType::get({2, 32}, b.getF32Type());
  auto func = func::FuncOp::create(
      b, loc, "f",
      b.getFunctionType(
          {x}, {RankedTensorType::get({2, 16}, b.getF32Type()), u.getType()}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value wv = ConstantOp::create(b, loc, w);
  Value uv = ConstantOp::create(b, loc, u);
  Value y = GemmOp::create(b, loc, body->getArgument(0), wv, Value(),
                           /*transA=*/false, /*transB=*/true, APFloat(1.0f),
                           APFloat(1.0f));
  func::ReturnOp::create(b, loc, ValueRange{y, uv});
  ASSERT_NE(w.getRawHandle().getBlob(), nullptr);

  std::optional<size_t> freedAfter = normalizeBias(context, *module);
  ASSERT_TRUE(freedAfter);
  EXPECT_EQ(*freedAfter, 16u * 32u * sizeof(float));
  // The Gemm became a matmul of a new, transposed constant; w's bytes are
  // gone, u's stay.
  bool matmul = false;
  module->walk([&](MatmulOp) { matmul = true; });
  EXPECT_TRUE(matmul);
  AsmResourceBlob *freed = w.getRawHandle().getBlob();
  EXPECT_TRUE(!freed || freed->getData().empty());
  AsmResourceBlob *kept = u.getRawHandle().getBlob();
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->getData().size(), 4u * 8u * sizeof(float));
}

TEST(DeadBlobTest, ReleaseResourceBlobsEmptiesEveryBlobTheModuleUses) {
  // What the artifact emitter calls once LLVM IR holds its copy: every
  // blob the module refers to loses its data, counted once however often
  // it is referred to; a blob the module does not use keeps its data.
  MLIRContext context;
  context.loadDialect<TandemDialect, func::FuncDialect>();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToStart(module->getBody());
  DenseResourceElementsAttr a = blobAttr(b, "a", {64}),
                            c = blobAttr(b, "c", {8});
  DenseResourceElementsAttr unused = blobAttr(b, "unused", {16});
  auto func = func::FuncOp::create(
      b, loc, "f", b.getFunctionType({}, {a.getType(), a.getType()}));
  b.setInsertionPointToStart(func.addEntryBlock());
  Value first = ConstantOp::create(b, loc, a);
  Value second = ConstantOp::create(b, loc, a);
  ConstantOp::create(b, loc, c);
  func::ReturnOp::create(b, loc, ValueRange{first, second});
  EXPECT_EQ(releaseResourceBlobs(*module), (64u + 8u) * sizeof(float));
  for (DenseResourceElementsAttr freed : {a, c}) {
    AsmResourceBlob *blob = freed.getRawHandle().getBlob();
    EXPECT_TRUE(!blob || blob->getData().empty());
  }
  ASSERT_NE(unused.getRawHandle().getBlob(), nullptr);
  EXPECT_EQ(unused.getRawHandle().getBlob()->getData().size(),
            16u * sizeof(float));
  EXPECT_EQ(releaseResourceBlobs(*module), 0u); // nothing left to free
}

/// A module with f(x) = x * w^T (a transB Gemm) for a dense_resource `w` of
/// [n, 32] floats.
OwningOpRef<ModuleOp> transposedGemm(OpBuilder &b, DenseResourceElementsAttr w,
                                     int64_t n) {
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToStart(module->getBody());
  auto x = RankedTensorType::get({2, 32}, b.getF32Type());
  auto func = func::FuncOp::create(
      b, loc, "f",
      b.getFunctionType({x}, {RankedTensorType::get({2, n}, b.getF32Type())}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value wv = ConstantOp::create(b, loc, w);
  Value y = GemmOp::create(b, loc, body->getArgument(0), wv, Value(),
                           /*transA=*/false, /*transB=*/true, APFloat(1.0f),
                           APFloat(1.0f));
  func::ReturnOp::create(b, loc, ValueRange{y});
  return module;
}

TEST(DeadBlobTest, LargeWeightIsFreedAsSoonAsItIsReplaced) {
  // A weight of 1 MiB or more that a rewrite replaces is freed by the
  // rewrite itself (eraseDeadWeight), not after the pass: the pass then
  // never holds every original beside its replacement.
  MLIRContext context;
  context.loadDialect<TandemDialect, func::FuncDialect>();
  OpBuilder b(&context);
  DenseResourceElementsAttr w = blobAttr(b, "w", {16384, 32}); // 2 MiB
  OwningOpRef<ModuleOp> module = transposedGemm(b, w, 16384);
  std::optional<size_t> freedAfter = normalizeBias(context, *module);
  ASSERT_TRUE(freedAfter);
  AsmResourceBlob *freed = w.getRawHandle().getBlob();
  EXPECT_TRUE(!freed || freed->getData().empty());
  EXPECT_EQ(*freedAfter, 0u); // nothing left for the instrumentation
}

TEST(DeadBlobTest, NestedPassLeavesTheFreeingToTheInstrumentation) {
  // Nested on functions (which may run on other threads), the rewrite must
  // not walk the module: the weight is freed after the pass instead.
  MLIRContext context;
  context.loadDialect<TandemDialect, func::FuncDialect>();
  OpBuilder b(&context);
  DenseResourceElementsAttr w = blobAttr(b, "w", {16384, 32});
  OwningOpRef<ModuleOp> module = transposedGemm(b, w, 16384);
  std::optional<size_t> freedAfter =
      normalizeBias(context, *module, /*nested=*/true);
  ASSERT_TRUE(freedAfter);
  AsmResourceBlob *freed = w.getRawHandle().getBlob();
  EXPECT_TRUE(!freed || freed->getData().empty());
  EXPECT_EQ(*freedAfter, 16384u * 32u * sizeof(float));
}

TEST(DeadBlobTest, NewWeightsTakeOverTheirBuffersAndAreReadInPlace) {
  // createF32Constant's blob is the vector's own buffer, and
  // viewF32Constant reads a blob without copying it.
  MLIRContext context;
  context.loadDialect<TandemDialect, func::FuncDialect>();
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  std::vector<float> data(4096);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = float(i);
  const float *buffer = data.data();
  Value constant = createF32Constant(
      b, b.getUnknownLoc(), RankedTensorType::get({64, 64}, b.getF32Type()),
      std::move(data), "moved");
  auto attr = dyn_cast<DenseResourceElementsAttr>(
      constant.getDefiningOp<ConstantOp>().getValue());
  ASSERT_TRUE(attr);
  ASSERT_NE(attr.getRawHandle().getBlob(), nullptr);
  EXPECT_EQ(attr.getRawHandle().getBlob()->getData().data(),
            reinterpret_cast<const char *>(buffer));
  std::optional<F32Values> view = viewF32Constant(constant);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->data(), buffer);
  EXPECT_EQ(view->size(), 4096u);
  EXPECT_EQ((*view)[4095], 4095.0f);
  // A splat has no storage to view: it is expanded.
  Value splat = ConstantOp::create(
      b, b.getUnknownLoc(),
      DenseElementsAttr::get(RankedTensorType::get({3}, b.getF32Type()), 2.5f));
  std::optional<F32Values> expanded = viewF32Constant(splat);
  ASSERT_TRUE(expanded);
  EXPECT_EQ(expanded->values(), llvm::ArrayRef<float>({2.5f, 2.5f, 2.5f}));
}

} // namespace
