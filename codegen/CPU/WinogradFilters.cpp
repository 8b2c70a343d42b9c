//===- WinogradFilters.cpp - compile-time Winograd filter transforms ------===//

#include "codegen/CPU/WinogradFilters.h"

#include "passes/Optimize/ConstantData.h"
#include "runtime/include/tandem/winograd.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <vector>

using namespace mlir;

int mlir::tandem::winogradTileFor(MemRefType output) {
  constexpr int64_t kMinTiles = 28; // two AVX-512 row panels (MR = 14)
  int64_t n = output.getDimSize(0), oh = output.getDimSize(2),
          ow = output.getDimSize(3);
  auto tiles = [&](int64_t m) {
    return n * ((oh + m - 1) / m) * ((ow + m - 1) / m);
  };
  return tiles(4) >= kMinTiles ? 4 : tiles(2) >= kMinTiles ? 2 : 0;
}

Value mlir::tandem::createWinogradFilter(OpBuilder &b, Location loc,
                                         Value filter, int m) {
  auto get = filter.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return {};
  auto module = get->getParentOfType<ModuleOp>();
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  if (!global || !module)
    return {};
  ArrayRef<int64_t> shape = global.getType().getShape();
  if (shape.size() != 4 || shape[2] != 3 || shape[3] != 3)
    return {};
  int64_t f = shape[0], c = shape[1], a = m + 2;
  auto type = MemRefType::get({a * a, c, f}, b.getF32Type());
  std::string name =
      (global.getSymName() + "_winograd" + std::to_string(m)).str();
  if (!SymbolTable::lookupSymbolIn(module, name)) {
    if (!global.getConstant() || !global.getInitialValue())
      return {};
    std::optional<F32Values> g =
        viewF32Elements(*global.getInitialValue(), global.getType());
    if (!g)
      return {};
    std::vector<float> u(tandem_winograd_filter_floats(m, f, c));
    tandem_winograd_transform_filter(m, f, c, g->data(), u.data());
    ElementsAttr value =
        f32ElementsAttr(RankedTensorType::get(type.getShape(), b.getF32Type()),
                        std::move(u), name);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(global);
    memref::GlobalOp::create(b, global.getLoc(), name,
                             b.getStringAttr("private"), type, value,
                             /*constant=*/true, b.getI64IntegerAttr(64));
  }
  return memref::GetGlobalOp::create(b, loc, type, name);
}
