// Apache Spark's JVM Spark Connect client (Maven Central) against
// `weir serve --spec`: SQL, a table read, schema, count, a DataFrame
// query with show(), a statement run eagerly, and an error.
import java.util.Arrays;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

public class WeirClient {
    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder().remote(args[0]).getOrCreate();
        System.out.println("sql: " + spark.sql("SELECT 1 AS x, 'a' AS s").collectAsList());
        Dataset<Row> orders = spark.read().table("orders");
        System.out.println("columns: " + Arrays.toString(orders.columns()));
        System.out.println("schema: " + orders.schema().simpleString());
        System.out.println("count: " + orders.count());
        orders.filter("paid").select("id", "customer", "amount").orderBy("id").show();
        System.out.println("by customer: "
            + spark.table("by_customer").orderBy("customer").collectAsList());
        spark.sql("CREATE TABLE jvm_notes (id BIGINT, note STRING)");
        spark.sql("INSERT INTO jvm_notes VALUES (1, 'from the JVM')");
        System.out.println("notes: " + spark.table("jvm_notes").collectAsList());
        try {
            spark.sql("SELECT nope FROM orders").collectAsList();
        } catch (Exception e) {
            String m = e.getMessage();
            System.out.println("error: " + e.getClass().getSimpleName() + ": "
                + m.substring(0, Math.min(m.length(), 60)));
        }
        spark.stop();
    }
}
