/* oracle.c STUB */
#include "csref/oracle.h"
