//===- DeviceProgram.cpp - what the artifact knows of GPU work ------------===//

#include "codegen/Artifact/DeviceProgram.h"

#include "dialects/TandemExec/IR/TandemExecDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::tandem;

FailureOr<std::optional<DeviceProgram>>
mlir::tandem::readDeviceProgram(ModuleOp module) {
  StringRef attrName = exec::TandemExecDialect::getProgramAttrName();
  Attribute attr = module->getAttr(attrName);
  if (!attr)
    return std::optional<DeviceProgram>();
  auto malformed = [&]() {
    return module.emitError() << "malformed '" << attrName << "' attribute";
  };
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return malformed();
  auto kernels = dict.getAs<ArrayAttr>("kernels");
  auto weights = dict.getAs<ArrayAttr>("weights");
  auto partitions = dict.getAs<ArrayAttr>("partitions");
  auto events = dict.getAs<IntegerAttr>("num_events");
  auto arena = dict.getAs<DenseI64ArrayAttr>("device_arena_sizes");
  if (!kernels || !weights || !partitions || !events || !arena ||
      arena.empty() ||
      llvm::any_of(arena.asArrayRef(), [](int64_t bytes) { return bytes < 0; }))
    return malformed();
  DeviceProgram program;
  program.numEvents = events.getInt();
  for (int64_t bytes : arena.asArrayRef())
    program.arenaBytes.push_back(static_cast<uint64_t>(bytes));
  for (Attribute k : kernels) {
    auto entry = dyn_cast<DictionaryAttr>(k);
    auto name = entry ? entry.getAs<StringAttr>("name") : StringAttr();
    auto args = entry ? entry.getAs<IntegerAttr>("num_args") : IntegerAttr();
    if (!name || !args)
      return malformed();
    program.kernels.push_back(
        {name.str(), static_cast<int32_t>(args.getInt())});
  }
  for (Attribute w : weights) {
    auto entry = dyn_cast<DictionaryAttr>(w);
    auto global =
        entry ? entry.getAs<FlatSymbolRefAttr>("global") : FlatSymbolRefAttr();
    auto device = entry ? entry.getAs<IntegerAttr>("device") : IntegerAttr();
    auto offset = entry ? entry.getAs<IntegerAttr>("offset") : IntegerAttr();
    auto bytes = entry ? entry.getAs<IntegerAttr>("bytes") : IntegerAttr();
    if (!global || !device || !offset || !bytes || device.getInt() < 0 ||
        device.getInt() >= static_cast<int64_t>(program.arenaBytes.size()))
      return malformed();
    program.weights.push_back({global.getValue().str(),
                               static_cast<int32_t>(device.getInt()),
                               static_cast<uint64_t>(offset.getInt()),
                               static_cast<uint64_t>(bytes.getInt())});
  }
  for (Attribute p : partitions) {
    auto name = dyn_cast<StringAttr>(p);
    if (!name)
      return malformed();
    program.partitions.push_back(name.str());
  }
  // Optional: a program without library convolutions has none.
  if (Attribute convs = dict.get("convs")) {
    auto list = dyn_cast<ArrayAttr>(convs);
    if (!list)
      return malformed();
    for (Attribute c : list) {
      auto global = dyn_cast<FlatSymbolRefAttr>(c);
      if (!global)
        return malformed();
      program.convs.push_back(global.getValue().str());
    }
  }
  return std::optional<DeviceProgram>(std::move(program));
}
