/* golden.c STUB */
#include "csref/golden.h"
