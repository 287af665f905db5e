/* value.h - a number measured or computed later, or not at all. Whatever
 * shows one shows N/A when it is not valid, never a made-up number (as
 * nvtop does for values it could not read). */
#ifndef COLLVIZ_SCENE_VALUE_H
#define COLLVIZ_SCENE_VALUE_H

#include <stdbool.h>

typedef struct {
    double v;   /* the value */
    bool valid; /* v holds a real result */
} Value;

#endif
