/*===- dtype.c - Element type sizes/names and tensor element counts ------===*/

#include "tandem/runtime.h"

/* The tables are abi.h's, which the compiler shares. */
size_t tandem_dtype_size(tandem_dtype_t dtype) {
  return (size_t)tandem_abi_dtype_size(dtype);
}

const char *tandem_dtype_name(tandem_dtype_t dtype) {
  return tandem_abi_dtype_name(dtype);
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
