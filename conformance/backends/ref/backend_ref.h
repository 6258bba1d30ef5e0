/*
 * backend_ref.h - the `ref` backend's entry (backend_ref.c): this
 * project's MPI reference behind the plugin ABI's struct.
 */
#ifndef CS_BACKEND_REF_H
#define CS_BACKEND_REF_H

#include "collspec/backend.h"

/* The backend's table (static). */
const cs_backend_t *cs_backend_ref(void);

#endif /* CS_BACKEND_REF_H */
