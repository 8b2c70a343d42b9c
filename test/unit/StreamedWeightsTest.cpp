//===- StreamedWeightsTest.cpp - weights written around LLVM --------------===//
//
// An object's large weights bypass LLVM (codegen/Artifact/StreamedWeights.h):
// the sparse buffer the code generator writes into keeps no zero blocks,
// the emitted ELF object holds the weights' bytes at their aligned offsets
// in one read-only section, small constants stay LLVM constants, and the
// module gets its weights back after emission.
//
//===----------------------------------------------------------------------===//

#include "codegen/Artifact/StreamedWeights.h"
#include "codegen/Artifact/ObjectEmitter.h"
#include "codegen/CPU/CPUPipeline.h"
#include "compiler/CompilerDialects.h"
#include "dialects/Tandem/IR/TandemDialect.h"
#include "passes/Passes.h"
#include "test/unit/LinkAndRun.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tandem;

namespace {

TEST(SparseObjectBufferTest, KeepsOnlyBlocksWithData) {
  SparseObjectBuffer buffer;
  std::string head = "\x7f"
                     "ELF header";
  buffer << head;
  buffer.write_zeros(4u << 20); // 4 MiB of zeros: no block for them
  buffer << "tail";
  buffer.flush();
  EXPECT_EQ(buffer.size(), head.size() + (4u << 20) + 4);
  // The first and the last 64 KiB block only.
  EXPECT_EQ(buffer.storedBytes(), 2u * 64 * 1024);

  // A patch into a zero block stores that block.
  buffer.pwrite("xy", 2, 1u << 20);
  EXPECT_EQ(buffer.storedBytes(), 3u * 64 * 1024);

  std::string read(6, '?');
  ASSERT_TRUE(buffer.read((1u << 20) - 2, {read.data(), read.size()}));
  EXPECT_EQ(read, std::string("\0\0xy\0\0", 6));
  ASSERT_TRUE(buffer.read(0, {read.data(), 4}));
  EXPECT_EQ(read.substr(0, 4), "\x7f"
                               "ELF");
  EXPECT_FALSE(buffer.read(buffer.size() - 2, {read.data(), 4}));

  std::string copy;
  llvm::raw_string_ostream os(copy);
  buffer.copyTo(os, 0, buffer.size());
  os.flush();
  ASSERT_EQ(copy.size(), buffer.size());
  EXPECT_EQ(copy.substr(0, head.size()), head);
  EXPECT_EQ(copy.substr(1u << 20, 2), "xy");
  EXPECT_EQ(copy.substr(copy.size() - 4), "tail");
  EXPECT_EQ(copy.find_first_not_of('\0', head.size()), size_t(1u << 20));
}

/// f32 values `scale * i` for i < n, as MLIR's dense literal.
std::string denseLiteral(int n, float scale) {
  std::string s = "dense<[";
  for (int i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(scale * i);
  return s + "]>";
}

/// y = x + wa[0:4] + wb[100:104] + wc, with wa (80,004 bytes) and wb
/// (70,000 bytes) large enough to stream and wc (16 bytes) not.
std::string model() {
  return "memref.global \"private\" constant @wa : memref<20001xf32> = " +
         denseLiteral(20001, 0.5f) +
         "\nmemref.global \"private\" constant @wb : memref<17500xf32> = " +
         denseLiteral(17500, -0.25f) + R"mlir(
memref.global "private" constant @wc : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @m(%x: memref<4xf32>, %y: memref<4xf32>) {
  %a = memref.get_global @wa : memref<20001xf32>
  %b = memref.get_global @wb : memref<17500xf32>
  %c = memref.get_global @wc : memref<4xf32>
  %sa = memref.subview %a[0] [4] [1] : memref<20001xf32> to memref<4xf32, strided<[1]>>
  %sb = memref.subview %b[100] [4] [1] : memref<17500xf32> to memref<4xf32, strided<[1], offset: 100>>
  linalg.add ins(%x, %sa : memref<4xf32>, memref<4xf32, strided<[1]>>) outs(%y : memref<4xf32>)
  linalg.add ins(%y, %sb : memref<4xf32>, memref<4xf32, strided<[1], offset: 100>>) outs(%y : memref<4xf32>)
  linalg.add ins(%y, %c : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
)mlir";
}

class StreamedWeightsTest : public ::testing::Test {
protected:
  StreamedWeightsTest() {
    DialectRegistry registry;
    registerCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Lowers the model to the LLVM dialect.
  OwningOpRef<ModuleOp> lower() {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(model(), &context);
    EXPECT_TRUE(module);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    pm.addPass(createTandemPlanMemory());
    buildCPULowerToLLVMPipeline(pm);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  std::string emit(ModuleOp module, ObjectKind kind) {
    ModelSignature signature;
    signature.name = "m";
    signature.inputs = {{"x", TANDEM_F32, {4}}};
    signature.outputs = {{"y", TANDEM_F32, {4}}};
    ObjectOptions options;
    options.triple = "x86_64-unknown-linux-gnu";
    llvm::SmallString<0> out;
    llvm::raw_svector_ostream os(out);
    EXPECT_TRUE(
        succeeded(emitModelObject(module, signature, options, kind, os)));
    return out.str().str();
  }

  MLIRContext context;
};

/// The bytes of `n` floats `scale * i`.
std::string floatBytes(int n, float scale) {
  std::string bytes(n * sizeof(float), '\0');
  for (int i = 0; i < n; ++i) {
    float v = scale * i;
    std::memcpy(&bytes[i * sizeof(float)], &v, sizeof(float));
  }
  return bytes;
}

TEST_F(StreamedWeightsTest, ObjectHoldsTheWeightsInAReadOnlySection) {
  OwningOpRef<ModuleOp> module = lower();
  ASSERT_TRUE(module);
  std::string object = emit(*module, ObjectKind::Object);
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "m.o"));
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(file->get());
  ASSERT_NE(elf, nullptr);

  std::optional<llvm::object::ELFSectionRef> weights;
  for (llvm::object::ELFSectionRef section : elf->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    ASSERT_TRUE(bool(name));
    if (*name == ".rodata.tandem_weights")
      weights = section;
  }
  ASSERT_TRUE(weights);
  EXPECT_EQ(weights->getType(), llvm::ELF::SHT_PROGBITS);
  EXPECT_EQ(weights->getFlags(), uint64_t(llvm::ELF::SHF_ALLOC));
  llvm::Expected<llvm::StringRef> contents = weights->getContents();
  ASSERT_TRUE(bool(contents));
  // wa at 0, wb at the next 64-byte boundary (80,004 -> 80,064), nothing
  // after it; wc is not here.
  std::string wa = floatBytes(20001, 0.5f), wb = floatBytes(17500, -0.25f);
  ASSERT_EQ(contents->size(), 80064u + wb.size());
  EXPECT_EQ(contents->substr(0, wa.size()), wa);
  EXPECT_EQ(contents->substr(wa.size(), 80064 - wa.size()),
            std::string(80064 - wa.size(), '\0'));
  EXPECT_EQ(contents->substr(80064), wb);
  // The code addresses the weights through relocations against the
  // section (its symbol or the stand-in's), not through undefined names.
  bool relocated = false;
  for (const llvm::object::SectionRef &section : elf->sections())
    for (const llvm::object::RelocationRef &reloc : section.relocations()) {
      llvm::object::symbol_iterator symbol = reloc.getSymbol();
      if (symbol == elf->symbol_end())
        continue;
      llvm::Expected<llvm::object::section_iterator> in = symbol->getSection();
      ASSERT_TRUE(bool(in));
      if (*in != elf->section_end() && **in == *weights)
        relocated = true;
    }
  EXPECT_TRUE(relocated);
  for (const llvm::object::SymbolRef &symbol : elf->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    ASSERT_TRUE(bool(name));
    EXPECT_NE(*name, "wa");
    EXPECT_NE(*name, "wb");
  }

  // The module has its weights back.
  auto wa_global = module->lookupSymbol<LLVM::GlobalOp>("wa");
  ASSERT_TRUE(wa_global);
  EXPECT_TRUE(wa_global.getValueOrNull());
  EXPECT_EQ(wa_global.getLinkage(), LLVM::Linkage::Private);
}

/// The code reads the weights where write() put them: linked with a C host,
/// the model computes exact results.
TEST_F(StreamedWeightsTest, ModelReadsTheStreamedWeights) {
  OwningOpRef<ModuleOp> module = lower();
  ASSERT_TRUE(module);
  tandem_test::linkAndRun(emit(*module, ObjectKind::Object),
                          "streamed_weights_harness.c");
}

/// LLVM IR output keeps every weight an LLVM constant, whose values the
/// optimiser may use (here it folds wa[1] = 0.5 into the code).
TEST_F(StreamedWeightsTest, LLVMIRKeepsTheWeightsAsConstants) {
  OwningOpRef<ModuleOp> module = lower();
  ASSERT_TRUE(module);
  std::string ir = emit(*module, ObjectKind::LLVMIR);
  EXPECT_EQ(ir.find("tandem_weights"), std::string::npos);
  EXPECT_NE(ir.find("5.000000e-01"), std::string::npos) << ir.substr(0, 2000);
}

} // namespace
