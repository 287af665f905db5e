/* check.h - the real buffers of the picture: read back from the backend
 * and compared, element by element, with what the symbolic state says
 * they must hold. Called by scene.c. */
#ifndef COLLVIZ_UI_CHECK_H
#define COLLVIZ_UI_CHECK_H

#include "ui/app.h"

/* Read every rank's buffers from the executor into app->real. */
CvError check_read_back(App *app);

/* The expected value of every element, cached between steps: only the
 * elements some step between two states wrote can differ between them. */
typedef struct CheckCache CheckCache;

/* A cache for the App's current scene (NULL: no memory). */
CheckCache *check_cache_new(const App *app);
void check_cache_free(CheckCache *c);

/* Compare app->real with the symbolic state after the App moved from step
 * `from` to app->step (SIZE_MAX: from anywhere): app->bad, app->nwrong. */
void check_compare(App *app, size_t from);

/* The value the symbolic state says element i of rank r's buffer b holds
 * (NAN for an empty or mixed element). */
double check_expected(const App *app, int r, BufId b, size_t i);

#endif
