/*===- status.c - tandem_status_t: heap-allocated error codes + messages -===*/

#include "tandem/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tandem_status_s {
  tandem_status_code_t code;
  char message[]; /* NUL-terminated */
};

/* Returned when a status cannot be allocated; never freed. */
static struct {
  tandem_status_code_t code;
  char message[64];
} oomStatus = {TANDEM_OUT_OF_MEMORY,
               "out of memory (while reporting another error)"};

#define OOM_STATUS ((tandem_status_t)(void *)&oomStatus)

tandem_status_code_t tandem_status_code(tandem_status_t status) {
  return status ? status->code : TANDEM_OK;
}

const char *tandem_status_message(tandem_status_t status) {
  return status ? status->message : "";
}

void tandem_status_free(tandem_status_t status) {
  if (status && status != OOM_STATUS)
    free(status);
}

tandem_status_t tandem_status_make(tandem_status_code_t code, const char *fmt,
                                   ...) {
  if (code == TANDEM_OK)
    return NULL;
  if (!fmt)
    fmt = "";
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int length = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (length < 0)
    length = 0;
  tandem_status_t status =
      malloc(sizeof(struct tandem_status_s) + (size_t)length + 1);
  if (!status) {
    va_end(args);
    return OOM_STATUS;
  }
  status->code = code;
  status->message[0] = '\0';
  vsnprintf(status->message, (size_t)length + 1, fmt, args);
  va_end(args);
  return status;
}

const char *tandem_status_code_name(tandem_status_code_t code) {
  switch (code) {
  case TANDEM_OK:
    return "OK";
  case TANDEM_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case TANDEM_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case TANDEM_BUSY:
    return "BUSY";
  case TANDEM_UNAVAILABLE:
    return "UNAVAILABLE";
  case TANDEM_INTERNAL:
    return "INTERNAL";
  }
  return "UNKNOWN";
}
