/* thread: the calling thread's recorder state and the recorded layers
 * (thread.h). */
#include "src/thread.h"

__thread siot_tls siot_t __attribute__((tls_model("initial-exec")));
_Atomic uint32_t siot_layer_mask;
