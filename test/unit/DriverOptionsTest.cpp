//===- DriverOptionsTest.cpp - the driver's option parsing helpers --------===//

#include "compiler/Driver/Compiler.h"

#include "gtest/gtest.h"

using namespace mlir::tandem;

namespace {

TEST(DriverOptions, ParsesShapes) {
  EXPECT_EQ(parseShape("1x3x224x224"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(parseShape("7"), (std::vector<int64_t>{7}));
  EXPECT_EQ(parseShape(""), (std::vector<int64_t>{}));
  EXPECT_FALSE(parseShape("1x"));
  EXPECT_FALSE(parseShape("1x-3"));
  EXPECT_FALSE(parseShape("axb"));
  EXPECT_FALSE(parseShape("1,3"));
}

TEST(DriverOptions, PhasesRoundTripInOrder) {
  const char *names[] = {"import",      "graph",      "placed", "fused",
                         "partitioned", "bufferized", "lowered"};
  std::optional<Phase> previous;
  for (const char *name : names) {
    std::optional<Phase> phase = parsePhase(name);
    ASSERT_TRUE(phase) << name;
    EXPECT_EQ(phaseName(*phase), name);
    if (previous)
      EXPECT_LT(*previous, *phase) << "phases must be ordered";
    previous = phase;
  }
  EXPECT_FALSE(parsePhase("codegen"));
}

TEST(DriverOptions, EmitKindsRoundTrip) {
  for (const char *name :
       {"mlir", "llvm", "ptx", "asm", "obj", "header", "shared"}) {
    std::optional<EmitKind> kind = parseEmitKind(name);
    ASSERT_TRUE(kind) << name;
    EXPECT_EQ(emitKindName(*kind), name);
  }
  EXPECT_FALSE(parseEmitKind("exe"));
}

TEST(DriverOptions, ValidatesFusionOptions) {
  FusionOptions options;
  EXPECT_EQ(validateFusionOptions(options), "");
  options.disableKinds = {"loop", "multi_output"};
  options.disableNodes = {"/layer1/*", "conv{1,2}"};
  EXPECT_EQ(validateFusionOptions(options), "");
  options.disableKinds.push_back("kernel");
  EXPECT_EQ(validateFusionOptions(options),
            "unknown fusion kind 'kernel' in --disable-fusion (expected "
            "loop, input, output or multi_output)");
  options.disableKinds.pop_back();
  options.disableNodes.push_back("conv[");
  EXPECT_NE(validateFusionOptions(options).find("invalid node glob 'conv['"),
            std::string::npos);
}

} // namespace
