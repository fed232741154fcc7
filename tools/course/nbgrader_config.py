# nbgrader's configuration for a course graded with the kernel `rust` (tools/course/README.md).
import os

c = get_config()  # noqa: F821 (nbgrader's config loader defines it)

# A course id that is not empty: PostgreSQL checks the assignments' key to the course table.
c.CourseDirectory.course_id = "attention-zoo"
# The gradebook: SQLite beside this file unless ZOO_GRADEBOOK_URL names another (postgresql://...).
if os.environ.get("ZOO_GRADEBOOK_URL"):
    c.CourseDirectory.db_url = os.environ["ZOO_GRADEBOOK_URL"]

# The students' version: each region between `// BEGIN SOLUTION` and `// END SOLUTION` becomes
# `todo!()` (nbgrader picks the stub by the notebook's kernelspec language, "rust").
c.ClearSolutions.code_stub = {"rust": "todo!()", "python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Autograding: the kernel `rust`, whatever a submission's metadata says; a cell that runs longer
# than the limit is interrupted and scores 0 (nbgrader appends a timeout error to it).
c.Execute.kernel_name = "rust"
c.Execute.timeout = int(os.environ.get("ZOO_CELL_TIMEOUT", "300"))
c.Execute.startup_timeout = 300
c.Execute.interrupt_on_timeout = True

# Each submission's kernel in a sandbox (tools/course/sandbox.py): nbgrader's Execute replaced by
# SandboxedExecute, which refuses to run without bubblewrap, namespaces and cgroups unless
# ZOO_GRADE_UNPROTECTED=1.
import sys  # noqa: E402

# (make_course.py writes the clone's tools/course in place of this folder.)
TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput, SaveAutoGrades  # noqa: E402
from nbgrader.preprocessors import ClearOutput, DeduplicateIds, OverwriteKernelspec  # noqa: E402
from restore import RestoredCells  # noqa: E402
from sandbox import SandboxedExecute  # noqa: E402

# A submission's cells restored as the source has them, their nbgrader flags included (restore.py):
# nbgrader's OverwriteCells alone stops grading a submission whose test cell lost its grade flag.
c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoredCells, CheckCellMetadata]
c.Autograde.autograde_preprocessors = [SandboxedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                       SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
