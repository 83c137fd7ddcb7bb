package streamplace;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.Partition;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.util.CallSite$;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.RDDScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;

import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * A placed chain's stage planned once and instantiated per micro-batch. Every batch the driver used to build the
 * same DataFrames anew — each input projected to the chain's columns with its routing target, their union, the
 * exchange, the plan cut at the stage (LocatedRDD), the chain's mapInArrow — and Catalyst analysed, optimized and
 * planned them again (~20 ms per routed input). The shape is the same in every batch, only the rows differ: this
 * keeps the two physical plans (the routed exchange over placeholder inputs, and the chain's stage over a
 * placeholder of the exchange's rows) and per batch copies them with the batch's input RDDs in the placeholders'
 * place, so no analysis, optimization or planning runs. Each copy is a new plan (a new shuffle), like the
 * DataFrames it replaces. The plans are made without whole-stage code generation: a generated stage's execute()
 * generates its code again and maps its partitions through Spark's public mapPartitionsWithIndex, whose closure
 * cleaner reads the closure's class file from Spark's jar — per batch and stage; half of the build (a 16-chain
 * probe on local[2]: 62.7 ms a build with it, 32.5 ms without). The stages' projections run as Spark's
 * per-partition projections instead (the same rows; measured: the same cost per row).
 */
public final class ChainTemplate {
    private static final ClassTag<InternalRow> TAG = ClassTag$.MODULE$.apply(InternalRow.class);
    private static final String WHOLE_STAGE = "spark.sql.codegen.wholeStage";

    private final SparkSession session;
    private final SparkPlan exchange;
    private final SparkPlan stage;
    private final String[][] locations;
    private final StructType schema;
    private RDD<InternalRow> last;

    /**
     * {@code exchange}: the chain's routed input over {@link #placeholder}s 0..k-1 (one per input); {@code stage}:
     * the chain's stage over placeholder 0, standing for the exchange's rows; {@code locations}: the partitions'
     * preferred hosts (LocatedRDD), or null to leave the tasks to Spark's scheduler.
     */
    public ChainTemplate(Dataset<Row> exchange, Dataset<Row> stage, String[][] locations) {
        org.apache.spark.sql.classic.Dataset<Row> ex = (org.apache.spark.sql.classic.Dataset<Row>) exchange;
        org.apache.spark.sql.classic.Dataset<Row> st = (org.apache.spark.sql.classic.Dataset<Row>) stage;
        this.session = st.sparkSession();
        SQLConf conf = session.sessionState().conf();
        String before = conf.getConfString(WHOLE_STAGE, null);
        conf.setConfString(WHOLE_STAGE, "false");
        try {
            this.exchange = planned(ex);
            this.stage = planned(st);
        } finally {
            if (before == null) {
                conf.unsetConf(WHOLE_STAGE);
            } else {
                conf.setConfString(WHOLE_STAGE, before);
            }
        }
        this.locations = locations;
        this.schema = st.schema();
    }

    private static SparkPlan planned(org.apache.spark.sql.classic.Dataset<Row> frame) {
        SparkPlan plan = frame.queryExecution().executedPlan();
        if (plan instanceof AdaptiveSparkPlanExec) {
            throw new IllegalStateException("a placed chain's template needs spark.sql.adaptive.enabled=false "
                + "(adaptive execution re-plans each run)");
        }
        return plan;
    }

    /** A DataFrame of {@code like}'s schema over no rows, standing for input {@code index} of a template. */
    public static Dataset<Row> placeholder(Dataset<Row> like, int index) {
        org.apache.spark.sql.classic.Dataset<Row> frame = (org.apache.spark.sql.classic.Dataset<Row>) like;
        SparkSession session = frame.sparkSession();
        return session.internalCreateDataFrame(new Slot(session.sparkContext(), index), frame.schema(), false);
    }

    /** The rows of {@code frame} as its plan computes them (what a template's input takes). */
    public static RDD<InternalRow> rowsOf(Dataset<Row> frame) {
        return ((org.apache.spark.sql.classic.Dataset<Row>) frame).queryExecution().toRdd();
    }

    /**
     * This batch's stage: the exchange over {@code inputs} (in the placeholders' order), cut into partitions that
     * prefer their replicas' hosts, and the chain over them, as the rows the stage outputs. Nothing runs, and no
     * DataFrame is made: a chain that only feeds the next one needs none ({@link #frame} makes it where one is read
     * as a DataFrame — its analysis was half of a chain's build). The RDDs take this chain's name as their call
     * site, so Spark does not walk the driver's stack for one per RDD.
     */
    public RDD<InternalRow> instantiate(List<RDD<InternalRow>> inputs, String name) {
        scala.Option<org.apache.spark.sql.SparkSession> active = org.apache.spark.sql.SparkSession.getActiveSession();
        SparkSession.setActiveSession(session);  // a plan node takes its session from the thread when it is made
        SparkContext sc = session.sparkContext();
        String shortSite = sc.getLocalProperty(CallSite$.MODULE$.SHORT_FORM());
        String longSite = sc.getLocalProperty(CallSite$.MODULE$.LONG_FORM());
        sc.setLocalProperty(CallSite$.MODULE$.SHORT_FORM(), name);
        sc.setLocalProperty(CallSite$.MODULE$.LONG_FORM(), name);
        try {
            RDD<InternalRow> routed = substitute(exchange, inputs).execute();
            if (locations != null) {
                routed = new LocatedRDD<>(routed, locations, TAG);
            }
            List<RDD<InternalRow>> cut = new ArrayList<>();
            cut.add(routed);
            last = substitute(stage, cut).execute();
            return last;
        } finally {
            sc.setLocalProperty(CallSite$.MODULE$.SHORT_FORM(), shortSite);
            sc.setLocalProperty(CallSite$.MODULE$.LONG_FORM(), longSite);
            if (active.isDefined()) {
                SparkSession.setActiveSession((SparkSession) active.get());
            } else {
                SparkSession.clearActiveSession();
            }
        }
    }

    /** The last {@link #instantiate}'s rows as a DataFrame of the stage's output (one analysis). */
    public Dataset<Row> frame() {
        return session.internalCreateDataFrame(last, schema, false);
    }

    private static SparkPlan substitute(SparkPlan plan, List<RDD<InternalRow>> inputs) {
        if (plan instanceof RDDScanExec scan && scan.rdd() instanceof Slot slot) {
            return scan.copy(scan.output(), inputs.get(slot.index), scan.name(), scan.outputPartitioning(),
                scan.outputOrdering(), scan.stream());
        }
        Seq<SparkPlan> children = plan.children();
        if (children.isEmpty()) {
            return plan;
        }
        List<SparkPlan> copies = new ArrayList<>();
        Iterator<SparkPlan> it = children.iterator();
        while (it.hasNext()) {
            copies.add(substitute(it.next(), inputs));
        }
        return plan.withNewChildren(CollectionConverters.asScala(copies).toList());
    }

    /** A placeholder input: no partitions, never computed (a template's plans are copied before they run). */
    static final class Slot extends RDD<InternalRow> {
        private static final long serialVersionUID = 1L;
        final int index;

        Slot(SparkContext sc, int index) {
            super(sc, CollectionConverters.asScala(new ArrayList<org.apache.spark.Dependency<?>>()).toList(), TAG);
            this.index = index;
        }

        @Override
        public Iterator<InternalRow> compute(Partition split, TaskContext context) {
            throw new IllegalStateException("a chain template's placeholder input ran: its plan was not copied");
        }

        @Override
        public Partition[] getPartitions() {
            return new Partition[0];
        }
    }
}
