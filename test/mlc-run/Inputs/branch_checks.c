/* Runs a model with a run-time check through its header: the branch that
   can run gives MLC_OK, the other MLC_ERROR_CHECK and its message. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  static float x[512], y[512];
  int64_t sr;
  const void *inputs[] = {x, &sr};
  void *outputs[] = {y};
  void *arena = aligned_alloc(MODEL_ARENA_ALIGNMENT,
                              (MODEL_ARENA_SIZE + 63) / 64 * 64);
  for (int i = 0; i < 512; ++i)
    x[i] = (float)i;
  sr = 16000;
  int32_t rc = model_run(arena, inputs, outputs);
  printf("16k: %d y[3] = %g message: '%s'\n", rc, y[3],
         model_check_message(arena));
  sr = 8000;
  rc = model_run(arena, inputs, outputs);
  printf("8k: %d %s\n", rc, rc == MLC_ERROR_CHECK ? "MLC_ERROR_CHECK" : "?");
  printf("message: %s\n", model_check_message(arena));
  sr = 16000;
  rc = model_run(arena, inputs, outputs);
  printf("16k again: %d y[3] = %g\n", rc, y[3]);
  free(arena);
  return 0;
}
