/*===- dtype.c - Element type sizes/names and tensor element counts ------===*/

#include "tandem/runtime.h"

size_t tandem_dtype_size(tandem_dtype_t dtype) {
  switch (dtype) {
  case TANDEM_F32:
  case TANDEM_I32:
  case TANDEM_U32:
    return 4;
  case TANDEM_F16:
  case TANDEM_BF16:
  case TANDEM_I16:
  case TANDEM_U16:
    return 2;
  case TANDEM_I64:
  case TANDEM_F64:
  case TANDEM_U64:
    return 8;
  case TANDEM_BOOL:
  case TANDEM_I8:
  case TANDEM_U8:
    return 1;
  }
  return 0;
}

const char *tandem_dtype_name(tandem_dtype_t dtype) {
  switch (dtype) {
  case TANDEM_F32:
    return "f32";
  case TANDEM_F16:
    return "f16";
  case TANDEM_BF16:
    return "bf16";
  case TANDEM_I64:
    return "i64";
  case TANDEM_I32:
    return "i32";
  case TANDEM_BOOL:
    return "bool";
  case TANDEM_F64:
    return "f64";
  case TANDEM_I8:
    return "i8";
  case TANDEM_U8:
    return "u8";
  case TANDEM_I16:
    return "i16";
  case TANDEM_U16:
    return "u16";
  case TANDEM_U32:
    return "u32";
  case TANDEM_U64:
    return "u64";
  }
  return "unknown";
}

int64_t tandem_tensor_desc_num_elements(const tandem_tensor_desc_t *desc) {
  if (!desc || desc->rank < 0 || (desc->rank > 0 && !desc->shape))
    return -1;
  int64_t count = 1;
  for (int32_t i = 0; i < desc->rank; ++i) {
    int64_t extent = desc->shape[i];
    if (extent < 0)
      return -1;
    if (extent != 0 && count > INT64_MAX / extent)
      return -1;
    count *= extent;
  }
  return count;
}
