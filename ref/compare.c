/* compare.c STUB */
#include "csref/compare.h"
