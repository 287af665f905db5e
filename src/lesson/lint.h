/* lint.h - what `collviz learn --check` checks in a lesson beyond its
 * syntax: every scene is one trace accepts, every step exists, every
 * query can be evaluated and every @answer agrees with it, and the
 * languages of a lesson have the same directives in the same order. Also
 * the scene an item plays in, for the player. */
#ifndef COLLVIZ_LESSON_LINT_H
#define COLLVIZ_LESSON_LINT_H
#include <stddef.h>
#include "cli/scene_opts.h"
#include "lesson/lesson.h"

/* The scene of item i's @scene (l->items[i] must be LI_SCENE): 0 and
 * *out, or -1 and trace's sentence in why. */
int lint_scene(const Lesson *l, size_t i, SceneSpec *out, char *why,
               size_t whylen);

/* Steps of the schedule a scene makes, or -1 with the sentence. */
long lint_scene_steps(const SceneSpec *sc, char *why, size_t whylen);

/* Check scenes, steps, queries and answers of l; problems to d. */
void lint_lesson(const Lesson *l, LessonDiags *d);

/* Check that b (language bname) has a's directives in a's order (scenes,
 * steps, commands, queries and answers equal; questions and hints are
 * the language's own); the first difference goes to d at b's line. */
void lint_pair(const Lesson *a, const char *aname, const Lesson *b,
               LessonDiags *d);

/* `collviz learn --check [FILE...]`: check the files (none: every lesson
 * of the lessons folder in every language), print each problem as
 * FILE:LINE: SENTENCE on stdout; returns the exit status (2: a problem). */
int lint_main(int nfiles, const char *const *files);
#endif
