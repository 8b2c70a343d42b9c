//===- Fuse.cpp - the -tandem-fuse pass -----------------------------------===//
//
// Implements -tandem-fuse: validates the options, plans and outlines the
// fusions of every function body, and writes the fusion report.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Fusion/FusionPlanner.h"
#include "passes/Fusion/FusionReport.h"

#include "dialects/Tandem/IR/TandemOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMFUSE
#include "passes/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;

std::string mlir::tandem::fusionKindList() {
  std::string list;
  for (unsigned kind = 0; kind < kNumFusionKinds; ++kind) {
    if (kind)
      list += kind + 1 == kNumFusionKinds ? " or " : ", ";
    list += stringifyFusionKind(static_cast<FusionKind>(kind));
  }
  return list;
}

namespace {
struct FusePass : tandem::impl::TandemFuseBase<FusePass> {
  using Base::Base;

  /// Fills `config` from the options; emits an error on a bad value.
  LogicalResult buildConfig(FusionConfig &config) {
    config.maxOps = maxOps;
    config.maxOperands = maxOperands;
    config.launchCostBytes = launchCostBytes;
    config.maxDuplicateInputBytes = maxDuplicateInputBytes;
    config.maxInlineConstantElements = maxInlineConstantElements;
    Operation *module = getOperation();
    if (maxOps < 1 || maxOperands < 1)
      return module->emitError()
             << "tandem-fuse: max-ops and max-operands must be at least 1, "
                "got "
             << config.maxOps << " and " << config.maxOperands;
    for (const std::string &kind : disableFusion) {
      std::optional<FusionKind> parsed = symbolizeFusionKind(kind);
      if (!parsed)
        return module->emitError()
               << "tandem-fuse: unknown fusion kind '" << kind
               << "' in disable-fusion (expected " << fusionKindList() << ")";
      config.disabledKinds[static_cast<unsigned>(*parsed)] = true;
    }
    for (const std::string &pattern : disableFusionOf) {
      llvm::Expected<llvm::GlobPattern> glob =
          llvm::GlobPattern::create(pattern);
      if (!glob)
        return module->emitError()
               << "tandem-fuse: invalid node glob '" << pattern
               << "' in disable-fusion-of: " << toString(glob.takeError());
      config.disabledNodes.push_back({pattern, std::move(*glob)});
    }
    return success();
  }

  void runOnOperation() override {
    FusionConfig config;
    if (failed(buildConfig(config)))
      return signalPassFailure();
    llvm::json::Array functions;
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      Region &body = function.getFunctionBody();
      if (!body.hasOneBlock()) {
        function.emitError() << "tandem-fuse: expected a single-block "
                                "function body, got "
                             << body.getBlocks().size() << " blocks";
        return signalPassFailure();
      }
      // Dead ops would only ride along in some fusion: drop them first.
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(body.front())))
        if (isOpTriviallyDead(&op))
          op.erase();
      FusionPlan plan = planFusion(body.front(), config);
      outlineFusions(body.front(), plan, config);
      functions.push_back(buildFusionReport(function.getName(), plan));
    }
    if (!fusionReport.empty() &&
        failed(writeFusionReport(std::move(functions), fusionReport,
                                 getOperation().getLoc())))
      return signalPassFailure();
  }
};
} // namespace
