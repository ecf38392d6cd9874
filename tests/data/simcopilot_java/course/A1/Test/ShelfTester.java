import java.util.ArrayList;
import java.util.List;

// A shelf of books, each with a title and a number of pages.
class Shelf {

  private final List<String> titles = new ArrayList<String>();
  private final List<Integer> pages = new ArrayList<Integer>();

  // put a book on the shelf; a book without pages is refused
  public boolean add (String title, int numPages) {
    if (numPages <= 0) {
      return false;
    }
    titles.add (title);
    pages.add (numPages);
    return true;
  }

  // the number of pages of all the books
  public int totalPages () {
    int total = 0;
    for (int i = 0; i < pages.size (); i++) {
      total += pages.get (i);
    }
    return total;
  }

  // the title of the longest book, or null on an empty shelf
  public String longest () {
    String best = null;
    int most = 0;
    for (int i = 0; i < pages.size (); i++) {
      if (pages.get (i) > most) {
        most = pages.get (i);
        best = titles.get (i);
      } else {
        most = Math.max (most, 0);
      }
    }
    return best;
  }

  // how a book's length is described
  public String describe (int numPages) {
    try {
      if (numPages > 500)
        return "long";
      return "short";
    } catch (RuntimeException e) {
      return "unknown";
    }
  }
}

public class ShelfTester {

  public static void main (String [] args) {
    Shelf shelf = new Shelf ();
    shelf.add ("Emma", 474);
    shelf.add ("Ulysses", 730);
    if (!shelf.add ("Blank", 0))
      System.out.println ("refused Blank");
    System.out.println (shelf.totalPages ());
    System.out.println (shelf.longest ());
  }
}

class Counter {

  private int count;

  public void bump (int by) {
    if (by > 0)
      count += by;
  }
}
