"""Tables in and out: the spreadsheet rows that ``batch`` and ``scenario --variants`` read and write.

| module    | what it holds                                                                       |
| --------- | ----------------------------------------------------------------------------------- |
| dialect   | how a spreadsheet wrote its CSV (separator, decimal mark, line ends, BOM), quoting  |
| table     | a table read from CSV text or a sheet: header, row texts, cells by column, blanks   |
| header    | a column header's name and the unit in its brackets                                 |
| csvsource | a CSV file as UTF-8 bytes (encoding checked), its rows in chunks of bounded size    |
| csvbytes  | CSV as bytes in numpy arrays: cells laid out, plain decimals read, numbers written   |
| workbook  | workbooks: a sheet read (python-calamine), an .xlsx written                          |
| files     | tables in and out of files: encodings, a sheet as a table, results as an .xlsx      |

A layer of its own right above the foundation: it knows rows, cells and files, never a formula or a
scenario (the formula-row batch, :mod:`qmodel.batch`, and the scenario's variants read tables here).
"""
