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
