/* lint.h - what `collviz learn --check` checks in a lesson beyond its
 * syntax: every scene is one trace accepts, every step exists, every
 * query can be evaluated and every @answer agrees with it, and the
 * languages of a lesson have the same directives in the same order. Also
 * the scene an item plays in, for the player. */
#ifndef COLLVIZ_LESSON_LINT_H
#define COLLVIZ_LESSON_LINT_H
#include <stddef.h>
#include "scene/scene_opts.h"
#include "lesson/lesson.h"

/* The scene of item i's @scene (l->items[i] must be LI_SCENE): 0 and
 * *out, or -1 and trace's sentence in why. */
int lint_scene(const Lesson *l, size_t i, SceneSpec *out, char *why,
               size_t whylen);

/* The picture of a scene: the player follows at most
 * LINT_PICTURE_MAX_CELLS elements of all ranks' buffers together (the
 * symbolic state it keeps and redraws grows with them) on at most
 * LINT_PICTURE_MAX_RANKS ranks (ui/scene.h's SCENE_MAX_RANKS). */
#define LINT_PICTURE_MAX_CELLS 65536ull
#define LINT_PICTURE_MAX_RANKS 64

/* The count the picture of scene sc follows: sc's own count where its
 * buffers hold at most LINT_PICTURE_MAX_CELLS elements, else the largest
 * count halved from it that fits (the cells are then groups of the
 * scene's elements; the counters and queries keep the scene's size). */
size_t lint_picture_count(const SceneSpec *sc);

/* A scene line as a learner types it (a goal's answer): trace's options
 * that trace accepts and the player can draw, -a naming a schedule file
 * or a built-in algorithm; 0 and *out, or -1 and the sentence. */
/* line with its `-a files/NAME` (if any) as `-a DIR/files/NAME` into
 * out: 1 when it had one, 0 when not (out: line), -1 and a sentence when
 * NAME is no plain name or the path does not fit. */
int lint_resolve_files(const char *dir, const char *line, char *out,
                       size_t n, char *why, size_t whylen);
/* A scene line a lesson gives (a goal's @answer): as lint_scene_line,
 * but the one schedule file it may name is `-a files/NAME`, in the
 * lessons' files/ folder. */
int lint_lesson_line(const char *line, SceneSpec *out, char *why,
                     size_t whylen);
int lint_scene_line(const char *line, SceneSpec *out, char *why,
                    size_t whylen);

/* Whether the player can draw scene sc: 0, or -1 and one sentence. */
int lint_picture_fits(const SceneSpec *sc, char *why, size_t whylen);

/* Steps of the schedule a scene makes, or -1 with the sentence. */
long lint_scene_steps(const SceneSpec *sc, char *why, size_t whylen);

/* Check scenes, steps, queries and answers of l; problems to d. */
void lint_lesson(const Lesson *l, LessonDiags *d);

/* Check that b (language bname) has a's directives in a's order (scenes,
 * steps, commands, queries and answers equal; questions and hints are
 * the language's own, but a checkpoint with a @hint in one has one in
 * the other); the first difference of directives goes to d at b's line,
 * and every checkpoint whose hint has no counterpart. */
void lint_pair(const Lesson *a, const char *aname, const Lesson *b,
               LessonDiags *d);

/* `collviz learn --check [FILE...]`: check the files (none: every lesson
 * of the lessons folder in every language), print each problem as
 * FILE:LINE: SENTENCE on stdout; returns the exit status (2: a problem). */
int lint_main(int nfiles, const char *const *files);
#endif
