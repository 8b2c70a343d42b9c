/* Links the shared runtime through Tandem::tandem_runtime_shared and calls
 * into it: prints the ABI version and a dtype's name and size. */
#include <tandem/runtime.h>

#include <stdio.h>

int main(void) {
  printf("ABI %d: %s is %zu bytes\n", TANDEM_ABI_VERSION,
         tandem_dtype_name(TANDEM_F32), tandem_dtype_size(TANDEM_F32));
  return 0;
}
