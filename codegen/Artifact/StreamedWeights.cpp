//===- StreamedWeights.cpp - weights written straight into the object -----===//

#include "codegen/Artifact/StreamedWeights.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::tandem;

/// The section the weights live in. Its `.rodata.` prefix lets linkers
/// place it with the other read-only data.
static constexpr llvm::StringLiteral kWeightSection = ".rodata.tandem_weights";
/// The stand-in global of that section.
static constexpr llvm::StringLiteral kWeightGlobal = "__tandem_weights";

//===----------------------------------------------------------------------===//
// SparseObjectBuffer
//===----------------------------------------------------------------------===//

static constexpr uint64_t kBlockBytes = 64 * 1024;

SparseObjectBuffer::SparseObjectBuffer() { SetBufferSize(kBlockBytes); }

SparseObjectBuffer::~SparseObjectBuffer() { flush(); }

void SparseObjectBuffer::store(const char *ptr, size_t size, uint64_t offset) {
  while (size) {
    uint64_t index = offset / kBlockBytes, within = offset % kBlockBytes;
    size_t n = std::min<uint64_t>(size, kBlockBytes - within);
    if (index >= blocks.size())
      blocks.resize(index + 1);
    std::unique_ptr<char[]> &block = blocks[index];
    if (!block && std::any_of(ptr, ptr + n, [](char c) { return c != 0; }))
      block = std::make_unique<char[]>(kBlockBytes); // zeroed
    if (block)
      std::memcpy(block.get() + within, ptr, n);
    ptr += n;
    size -= n;
    offset += n;
  }
}

void SparseObjectBuffer::write_impl(const char *ptr, size_t size) {
  store(ptr, size, end);
  end += size;
}

void SparseObjectBuffer::pwrite_impl(const char *ptr, size_t size,
                                     uint64_t offset) {
  // What is still buffered lies before the patch: store it first.
  flush();
  store(ptr, size, offset);
}

uint64_t SparseObjectBuffer::storedBytes() const {
  return kBlockBytes * llvm::count_if(blocks, [](const auto &block) {
           return block != nullptr;
         });
}

bool SparseObjectBuffer::read(uint64_t offset,
                              llvm::MutableArrayRef<char> out) const {
  if (offset > end || out.size() > end - offset)
    return false;
  char *dst = out.data();
  for (size_t left = out.size(); left;) {
    uint64_t index = offset / kBlockBytes, within = offset % kBlockBytes;
    size_t n = std::min<uint64_t>(left, kBlockBytes - within);
    if (index < blocks.size() && blocks[index])
      std::memcpy(dst, blocks[index].get() + within, n);
    else
      std::memset(dst, 0, n);
    dst += n;
    offset += n;
    left -= n;
  }
  return true;
}

/// Writes `count` zero bytes to `os`.
static void writeZeros(llvm::raw_ostream &os, uint64_t count) {
  static const char zeros[4096] = {};
  for (; count; count -= std::min<uint64_t>(count, sizeof(zeros)))
    os.write(zeros, std::min<uint64_t>(count, sizeof(zeros)));
}

void SparseObjectBuffer::copyTo(llvm::raw_ostream &os, uint64_t begin,
                                uint64_t stop) const {
  for (uint64_t offset = begin; offset < stop;) {
    uint64_t index = offset / kBlockBytes, within = offset % kBlockBytes;
    size_t n = std::min<uint64_t>(stop - offset, kBlockBytes - within);
    if (index < blocks.size() && blocks[index])
      os.write(blocks[index].get() + within, n);
    else
      writeZeros(os, n);
    offset += n;
  }
}

//===----------------------------------------------------------------------===//
// StreamedWeights
//===----------------------------------------------------------------------===//

bool StreamedWeights::supports(const llvm::Triple &triple) {
  return triple.isOSBinFormatELF() && triple.isArch64Bit() &&
         triple.isLittleEndian() && llvm::sys::IsLittleEndianHost;
}

/// The bytes of a flattened weight's value, or an empty array when it has
/// none to stream (a splat, a released blob).
static llvm::ArrayRef<char> bytesOf(Attribute value) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
    return {};
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.isSplat() ? llvm::ArrayRef<char>() : dense.getRawData();
  return {};
}

StreamedWeights::StreamedWeights(ModuleOp module, uint64_t minBytes) {
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (!global.getConstant() || !array ||
        !array.getElementType().isInteger(8) ||
        array.getNumElements() < minBytes || global.getAddrSpace() != 0 ||
        global.getThreadLocal_() || global.getSection() ||
        global.getInitializerBlock())
      continue;
    Attribute value = global.getValueOrNull();
    llvm::ArrayRef<char> bytes =
        value ? bytesOf(value) : llvm::ArrayRef<char>();
    if (bytes.size() != array.getNumElements())
      continue;
    weights.push_back({global, value, global.getLinkage(), bytes,
                       global.getAlignment().value_or(1), std::nullopt});
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
  }
}

StreamedWeights::~StreamedWeights() {
  for (Weight &weight : weights) {
    weight.global.setValueAttr(weight.value);
    weight.global.setLinkage(weight.linkage);
  }
}

void StreamedWeights::define(llvm::Module &llvm) {
  llvm::LLVMContext &ctx = llvm.getContext();
  auto *i8 = llvm::Type::getInt8Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  uint64_t alignment = 1, offset = 0;
  llvm::SmallVector<std::pair<llvm::GlobalVariable *, uint64_t>> uses;
  for (Weight &weight : weights) {
    // The optimiser may have dropped a weight nothing reads.
    llvm::GlobalVariable *declaration =
        llvm.getGlobalVariable(weight.global.getSymName());
    if (!declaration)
      continue;
    offset = llvm::alignTo(offset, weight.alignment);
    weight.offset = offset;
    uses.push_back({declaration, offset});
    offset += weight.bytes.size();
    alignment = std::max(alignment, weight.alignment);
  }
  sectionBytes = offset;
  if (!sectionBytes)
    return;
  // Zeros the assembler keeps as a size, not bytes, and one non-zero byte
  // so that the global is data, not .bss. Writable, so that no pass may
  // fold a load from it into those zeros; write() makes the section
  // read-only in the object.
  auto *zeros = llvm::ArrayType::get(i8, sectionBytes - 1);
  auto *type = llvm::StructType::get(ctx, {zeros, i8});
  auto *standIn = new llvm::GlobalVariable(
      llvm, type, /*isConstant=*/false, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantStruct::get(type, {llvm::ConstantAggregateZero::get(zeros),
                                       llvm::ConstantInt::get(i8, 1)}),
      kWeightGlobal);
  standIn->setSection(kWeightSection);
  standIn->setAlignment(llvm::Align(alignment));
  for (auto [declaration, at] : uses) {
    declaration->replaceAllUsesWith(
        llvm::ConstantExpr::getInBoundsGetElementPtr(
            i8, standIn, llvm::ConstantInt::get(i64, at)));
    declaration->eraseFromParent();
  }
}

namespace {
/// Section headers of a 64-bit little-endian ELF object in a
/// SparseObjectBuffer.
struct ElfSections {
  const SparseObjectBuffer &object;
  uint64_t tableOffset = 0, count = 0;

  std::optional<llvm::ELF::Elf64_Shdr> header(uint64_t index) const {
    llvm::ELF::Elf64_Shdr header;
    if (!object.read(tableOffset + index * sizeof(header),
                     {reinterpret_cast<char *>(&header), sizeof(header)}))
      return std::nullopt;
    return header;
  }
};
} // namespace

LogicalResult StreamedWeights::write(SparseObjectBuffer &object,
                                     llvm::raw_ostream &os,
                                     Location loc) const {
  object.flush();
  if (!sectionBytes) {
    object.copyTo(os, 0, object.size());
    return success();
  }
  auto fail = [&](const llvm::Twine &why) {
    return emitError(loc) << "cannot place the weights in the object: " << why;
  };
  llvm::ELF::Elf64_Ehdr ehdr;
  if (!object.read(0, {reinterpret_cast<char *>(&ehdr), sizeof(ehdr)}) ||
      std::memcmp(ehdr.e_ident, llvm::ELF::ElfMagic, 4) != 0 ||
      ehdr.e_ident[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      ehdr.e_ident[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB ||
      ehdr.e_shentsize != sizeof(llvm::ELF::Elf64_Shdr))
    return fail("not a 64-bit little-endian ELF object");
  ElfSections sections{object, ehdr.e_shoff, ehdr.e_shnum};
  uint64_t namesIndex = ehdr.e_shstrndx;
  // Extended numbering: section 0 holds the real count and name table.
  if (std::optional<llvm::ELF::Elf64_Shdr> first = sections.header(0)) {
    if (sections.count == 0)
      sections.count = first->sh_size;
    if (namesIndex == llvm::ELF::SHN_XINDEX)
      namesIndex = first->sh_link;
  }
  std::optional<llvm::ELF::Elf64_Shdr> names = sections.header(namesIndex);
  if (!names)
    return fail("no section name table");
  std::optional<uint64_t> found;
  llvm::ELF::Elf64_Shdr weightHeader;
  std::string name(kWeightSection.size() + 1, '\0');
  for (uint64_t i = 0; i < sections.count; ++i) {
    std::optional<llvm::ELF::Elf64_Shdr> header = sections.header(i);
    if (!header)
      return fail("truncated section headers");
    if (header->sh_name >= names->sh_size ||
        !object.read(names->sh_offset + header->sh_name,
                     {name.data(),
                      std::min<uint64_t>(name.size(),
                                         names->sh_size - header->sh_name)}))
      continue;
    if (llvm::StringRef(name.c_str()) != kWeightSection)
      continue;
    if (found)
      return fail("two weight sections");
    found = i;
    weightHeader = *header;
  }
  if (!found)
    return fail("no '" + kWeightSection + "' section");
  if (weightHeader.sh_type != llvm::ELF::SHT_PROGBITS ||
      weightHeader.sh_size != sectionBytes ||
      weightHeader.sh_offset > object.size() ||
      sectionBytes > object.size() - weightHeader.sh_offset)
    return fail("the section is not the stand-in's " +
                llvm::Twine(sectionBytes) + " bytes");

  // Nothing writes to the weights: the section becomes read-only, placed
  // by the linker with the other constants.
  weightHeader.sh_flags &= ~uint64_t(llvm::ELF::SHF_WRITE);
  object.pwrite(reinterpret_cast<const char *>(&weightHeader),
                sizeof(weightHeader),
                sections.tableOffset + *found * sizeof(weightHeader));
  object.flush();

  uint64_t start = weightHeader.sh_offset;
  object.copyTo(os, 0, start);
  uint64_t at = 0;
  for (const Weight &weight : weights) {
    if (!weight.offset)
      continue;
    writeZeros(os, *weight.offset - at);
    os.write(weight.bytes.data(), weight.bytes.size());
    at = *weight.offset + weight.bytes.size();
  }
  writeZeros(os, sectionBytes - at);
  object.copyTo(os, start + sectionBytes, object.size());
  return success();
}
