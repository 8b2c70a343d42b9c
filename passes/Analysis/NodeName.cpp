//===- NodeName.cpp - user-facing names of graph ops ----------------------===//

#include "passes/Analysis/NodeName.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Location.h"

using namespace mlir;

static std::string findName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = findName(inner); !name.empty())
        return name;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return findName(callSite.getCallee());
  return "";
}

std::string mlir::tandem::getNodeName(Operation *op) {
  return findName(op->getLoc());
}

std::string mlir::tandem::getDisplayName(Operation *op) {
  if (std::string name = getNodeName(op); !name.empty())
    return name;
  std::string result = op->getName().stripDialect().str();
  if (Block *block = op->getBlock()) {
    unsigned index = 0;
    for (Operation &other : *block) {
      if (&other == op)
        break;
      ++index;
    }
    result += "#" + std::to_string(index);
  }
  return result;
}

std::string mlir::tandem::sanitizeName(llvm::StringRef name) {
  std::string result;
  for (char c : name)
    result += (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')
                  ? c
                  : '_';
  return result;
}
