// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The sroce: tracepoints, defined once (trace.h declares them). */
#define CREATE_TRACE_POINTS
#include "trace.h"
