/* exercise.h - a "write it yourself" checkpoint's file (@start): the
 * learner's own copy of a lesson's starting schedule, in the state folder
 * beside the progress, made once and never written over. */
#ifndef COLLVIZ_LESSON_EXERCISE_H
#define COLLVIZ_LESSON_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>

/* The learner's copy of files/NAME of the lessons folder dir,
 * exercise-NAME in the state folder: made from the lesson's file when
 * there is none (*made true), else left as the learner wrote it. 0 and
 * its path, or -1 and one sentence. */
int lesson_exercise(const char *dir, const char *name, char *path, size_t len,
                    bool *made, char *why, size_t whylen);

#endif
