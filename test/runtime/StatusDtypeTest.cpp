//===- StatusDtypeTest.cpp - tandem_status_t, dtypes, arenas --------------===//

#include "tandem/runtime.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace {

TEST(Status, NullIsOk) {
  EXPECT_EQ(tandem_status_code(nullptr), TANDEM_OK);
  EXPECT_STREQ(tandem_status_message(nullptr), "");
  tandem_status_free(nullptr);
  EXPECT_EQ(tandem_status_make(TANDEM_OK, "ignored %d", 1), nullptr);
}

TEST(Status, FormatsMessage) {
  tandem_status_t status =
      tandem_status_make(TANDEM_BUSY, "model '%s' has %d runs", "m", 2);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(tandem_status_code(status), TANDEM_BUSY);
  EXPECT_STREQ(tandem_status_message(status), "model 'm' has 2 runs");
  tandem_status_free(status);
}

TEST(Status, LongMessageIsNotTruncated) {
  std::string longText(5000, 'x');
  tandem_status_t status =
      tandem_status_make(TANDEM_INTERNAL, "%s!", longText.c_str());
  EXPECT_EQ(std::string(tandem_status_message(status)), longText + "!");
  tandem_status_free(status);
}

TEST(Status, CodeNames) {
  EXPECT_STREQ(tandem_status_code_name(TANDEM_OK), "OK");
  EXPECT_STREQ(tandem_status_code_name(TANDEM_INVALID_ARGUMENT),
               "INVALID_ARGUMENT");
  EXPECT_STREQ(tandem_status_code_name(TANDEM_INTERNAL), "INTERNAL");
  EXPECT_STREQ(tandem_status_code_name(static_cast<tandem_status_code_t>(42)),
               "UNKNOWN");
}

TEST(Dtype, SizesAndNames) {
  EXPECT_EQ(tandem_dtype_size(TANDEM_F32), 4u);
  EXPECT_EQ(tandem_dtype_size(TANDEM_F16), 2u);
  EXPECT_EQ(tandem_dtype_size(TANDEM_BF16), 2u);
  EXPECT_EQ(tandem_dtype_size(TANDEM_I64), 8u);
  EXPECT_EQ(tandem_dtype_size(TANDEM_I32), 4u);
  EXPECT_EQ(tandem_dtype_size(TANDEM_BOOL), 1u);
  EXPECT_EQ(tandem_dtype_size(static_cast<tandem_dtype_t>(99)), 0u);
  EXPECT_STREQ(tandem_dtype_name(TANDEM_F32), "f32");
  EXPECT_STREQ(tandem_dtype_name(TANDEM_F16), "f16");
  EXPECT_STREQ(tandem_dtype_name(TANDEM_BF16), "bf16");
  EXPECT_STREQ(tandem_dtype_name(TANDEM_I64), "i64");
  EXPECT_STREQ(tandem_dtype_name(TANDEM_I32), "i32");
  EXPECT_STREQ(tandem_dtype_name(TANDEM_BOOL), "bool");
  EXPECT_STREQ(tandem_dtype_name(static_cast<tandem_dtype_t>(-1)), "unknown");
}

// The dtypes appended after bool keep the first six values (the ABI) and
// have their own sizes and names.
TEST(Dtype, AppendedTypes) {
  EXPECT_EQ(TANDEM_F32, 0);
  EXPECT_EQ(TANDEM_BOOL, 5);
  EXPECT_EQ(TANDEM_F64, 6);
  EXPECT_EQ(TANDEM_U64, 12);
  EXPECT_EQ(TANDEM_DTYPE_LAST, TANDEM_U64);
  const struct {
    tandem_dtype_t dtype;
    size_t size;
    const char *name;
  } table[] = {{TANDEM_F64, 8, "f64"}, {TANDEM_I8, 1, "i8"},
               {TANDEM_U8, 1, "u8"},   {TANDEM_I16, 2, "i16"},
               {TANDEM_U16, 2, "u16"}, {TANDEM_U32, 4, "u32"},
               {TANDEM_U64, 8, "u64"}};
  for (const auto &entry : table) {
    EXPECT_EQ(tandem_dtype_size(entry.dtype), entry.size) << entry.name;
    EXPECT_STREQ(tandem_dtype_name(entry.dtype), entry.name);
  }
  EXPECT_EQ(
      tandem_dtype_size(static_cast<tandem_dtype_t>(TANDEM_DTYPE_LAST + 1)),
      0u);
}

TEST(Dtype, NumElements) {
  const int64_t shape[] = {2, 3, 4};
  tandem_tensor_desc_t desc = {"t", TANDEM_F32, 3, shape};
  EXPECT_EQ(tandem_tensor_desc_num_elements(&desc), 24);
  desc.rank = 0;
  EXPECT_EQ(tandem_tensor_desc_num_elements(&desc), 1);
  desc.rank = 2;
  desc.shape = nullptr;
  EXPECT_EQ(tandem_tensor_desc_num_elements(&desc), -1);
  const int64_t negative[] = {2, -1};
  desc.shape = negative;
  EXPECT_EQ(tandem_tensor_desc_num_elements(&desc), -1);
  const int64_t huge[] = {INT64_MAX / 2, 3};
  desc.shape = huge;
  EXPECT_EQ(tandem_tensor_desc_num_elements(&desc), -1);
  EXPECT_EQ(tandem_tensor_desc_num_elements(nullptr), -1);
}

TEST(Arena, AlignedAndRounded) {
  for (uint64_t bytes : {1ull, 63ull, 64ull, 65ull, 1000ull, 1ull << 20}) {
    void *arena = nullptr;
    tandem_status_t status = tandem_arena_alloc(bytes, &arena);
    ASSERT_EQ(status, nullptr) << tandem_status_message(status);
    ASSERT_NE(arena, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(arena) % TANDEM_ARENA_ALIGNMENT, 0u);
    // The whole (rounded) size is writable.
    static_cast<char *>(arena)[(bytes + 63) / 64 * 64 - 1] = 1;
    tandem_arena_free(arena);
  }
}

TEST(Arena, ZeroAndErrors) {
  void *arena = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(tandem_arena_alloc(0, &arena), nullptr);
  EXPECT_EQ(arena, nullptr);
  tandem_status_t status = tandem_arena_alloc(16, nullptr);
  EXPECT_EQ(tandem_status_code(status), TANDEM_INVALID_ARGUMENT);
  tandem_status_free(status);
  status = tandem_arena_alloc(UINT64_MAX - 3, &arena);
  EXPECT_EQ(tandem_status_code(status), TANDEM_OUT_OF_MEMORY);
  EXPECT_EQ(arena, nullptr);
  tandem_status_free(status);
  tandem_arena_free(nullptr);
}

} // namespace
