"""Tables, plots and the HTML report of scheduler comparisons."""
