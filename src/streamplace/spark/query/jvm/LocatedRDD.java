package streamplace;

import java.util.Arrays;

import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * An RDD that is its parent, partition for partition, with the preferred locations streamplace's plan gives each
 * partition (a host, or "executor_HOST_ID"). Spark's DAGScheduler takes a stage's task locations from the first
 * RDD on its narrow lineage that names any, so a stage built on top of this one runs partition i's task where
 * locations[i] says, for as long as TaskSetManager's locality wait lets it wait for that place.
 */
public final class LocatedRDD<T> extends RDD<T> {
    private static final long serialVersionUID = 1L;
    private final String[][] locations;
    private final ClassTag<T> tag;

    public LocatedRDD(RDD<T> parent, String[][] locations, ClassTag<T> tag) {
        super(parent, tag);
        if (locations.length != parent.getNumPartitions()) {
            throw new IllegalArgumentException("locations for " + locations.length + " partitions, the parent has "
                + parent.getNumPartitions());
        }
        this.locations = locations;
        this.tag = tag;
    }

    @SuppressWarnings("unchecked")
    private RDD<T> parent() {
        return (RDD<T>) dependencies().head().rdd();
    }

    @Override
    public Iterator<T> compute(Partition split, TaskContext context) {
        return parent().iterator(split, context);
    }

    @Override
    public Partition[] getPartitions() {
        return parent().partitions();
    }

    @Override
    public Seq<String> getPreferredLocations(Partition split) {
        return CollectionConverters.asScala(Arrays.asList(locations[split.index()])).toList();
    }

    /** The rows of {@code frame} in its own partitions, partition i preferring {@code locations[i]}. */
    public static Dataset<Row> locate(org.apache.spark.sql.classic.Dataset<Row> frame, String[][] locations) {
        RDD<InternalRow> rows = frame.queryExecution().toRdd();
        ClassTag<InternalRow> tag = ClassTag$.MODULE$.apply(InternalRow.class);
        SparkSession session = frame.sparkSession();
        return session.internalCreateDataFrame(new LocatedRDD<>(rows, locations, tag), frame.schema(), false);
    }
}
