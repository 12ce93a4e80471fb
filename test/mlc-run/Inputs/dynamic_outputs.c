/* Runs a NonZero model through its header: the output's record gets the
   address of data the model allocated and its dims; the caller frees it. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  static unsigned char x[MODEL_INPUT0_SIZE]; /* bool [2, 2] */
  int64_t record[1 + MODEL_OUTPUT0_RANK] = {0};
  const void *inputs[] = {x};
  void *outputs[] = {record};
  void *arena = aligned_alloc(64, (MODEL_ARENA_SIZE + 64) / 64 * 64);
  x[1] = 1; /* (0, 1) */
  x[3] = 1; /* (1, 1) */
  int32_t rc = model_run(arena, inputs, outputs);
  printf("rc %d dims %lld x %lld\n", rc, (long long)record[1],
         (long long)record[2]);
  const int64_t *data = (const int64_t *)(uintptr_t)record[0];
  for (int64_t r = 0; r < record[1]; ++r) {
    printf("row %lld:", (long long)r);
    for (int64_t c = 0; c < record[2]; ++c)
      printf(" %lld", (long long)data[r * record[2] + c]);
    printf("\n");
  }
  free((void *)data);
  free(arena);
  return 0;
}
