"""nbgrader's OverwriteCells, with a submitted cell's nbgrader flags first put back as the course's
source has them: what `nbgrader_config.py` uses in its place.

nbgrader restores a locked cell's source when its checksum changed, but it reads the flags that
enter the checksum (grade, solution, locked, points) from the submission. A test cell whose
`grade` flag a student turned off keeps a wrong checksum after its source is restored, and
nbgrader stops grading that whole submission ("Inconsistent checksums"); `nbgrader autograde`
then ends with an error for the class. Here the flags come from the gradebook first, so the cell
is restored and graded as the source has it. A cell whose grade id is not the source's loses its
nbgrader metadata: it is the student's own cell, which no grade reads, and the test cell it
stood for scores 0, as a deleted one does (nbgrader would drop the id and keep the flags, then
refuse the whole notebook: "nbgrader cell does not have a grade_id").
"""
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import OverwriteCells


class RestoredCells(OverwriteCells):
    def preprocess_cell(self, cell, resources, cell_index):
        marks = cell.metadata.get("nbgrader")
        if marks is None:
            return cell, resources
        source, where = None, (marks.get("grade_id"), self.notebook_id, self.assignment_id)
        if where[0] is not None:
            try:
                source = self.gradebook.find_source_cell(*where)
            except MissingEntry:
                pass
        if source is None:
            # not a cell of the source: the student's own (nbgrader would drop the id and keep
            # the flags, then refuse the notebook for a flagged cell without an id)
            del cell.metadata["nbgrader"]
            return cell, resources
        marks["locked"] = source.locked
        try:
            marks["points"] = float(self.gradebook.find_grade_cell(*where).max_score)
            marks["grade"] = True
        except MissingEntry:
            marks["grade"] = False
            marks.pop("points", None)
        try:
            self.gradebook.find_solution_cell(*where)
            marks["solution"] = True
        except MissingEntry:
            marks["solution"] = False
        return super().preprocess_cell(cell, resources, cell_index)
