/*
 * fit.c - least-squares fit of alpha and beta (csref/cost.h): the normal
 * equations of y ~ alpha x1 + beta x2 weighted by 1/y^2, solved by
 * Cramer's rule (two unknowns).
 */
#include <math.h>
#include "csref/cost.h"

cs_status_t cs_cost_fit(const double *x1, const double *x2, const double *y,
			size_t k, double *alpha, double *beta)
{
	double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0, det, scale;
	size_t i;

	if (!x1 || !x2 || !y || !alpha || !beta)
		return cs_error(CS_ERR_INVALID, "cs_cost_fit: no data");
	if (k < 2)
		return cs_error(CS_ERR_INVALID, "a fit of alpha and beta needs "
				"at least 2 points, got %zu", k);
	for (i = 0; i < k; i++) {
		double w;

		if (!isfinite(y[i]) || y[i] <= 0 || !isfinite(x1[i]) ||
		    !isfinite(x2[i]))
			return cs_error(CS_ERR_INVALID, "point %zu: time %g is "
					"not finite and positive", i, y[i]);
		w = 1.0 / (y[i] * y[i]);
		s11 += w * x1[i] * x1[i];
		s12 += w * x1[i] * x2[i];
		s22 += w * x2[i] * x2[i];
		s1y += w * x1[i] * y[i];
		s2y += w * x2[i] * y[i];
	}
	det = s11 * s22 - s12 * s12;
	/* singular when the columns are proportional (one size only, or
	 * every point with the same bytes-to-latency ratio) */
	scale = s11 * s22;
	if (!(scale > 0) || !(fabs(det) > 1e-12 * scale))
		return cs_error(CS_ERR_INVALID, "the points do not separate "
				"alpha from beta (need at least 2 different "
				"sizes)");
	*alpha = (s1y * s22 - s2y * s12) / det;
	*beta = (s11 * s2y - s12 * s1y) / det;
	return CS_OK;
}
