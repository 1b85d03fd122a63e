package org.kgverify.hapilocal;

import ca.uhn.fhir.batch2.jobs.config.Batch2JobsConfig;
import ca.uhn.fhir.jpa.api.config.JpaStorageSettings;
import ca.uhn.fhir.jpa.batch2.JpaBatch2Config;
import ca.uhn.fhir.jpa.api.config.ThreadPoolFactoryConfig;
import ca.uhn.fhir.jpa.api.dao.DaoRegistry;
import ca.uhn.fhir.jpa.api.dao.IFhirSystemDao;
import ca.uhn.fhir.jpa.config.HibernatePropertiesProvider;
import ca.uhn.fhir.jpa.config.r4.JpaR4Config;
import ca.uhn.fhir.jpa.config.util.HapiEntityManagerFactoryUtil;
import ca.uhn.fhir.jpa.config.util.ResourceCountCacheUtil;
import ca.uhn.fhir.jpa.dao.FulltextSearchSvcImpl;
import ca.uhn.fhir.jpa.dao.IFulltextSearchSvc;
import ca.uhn.fhir.jpa.dao.search.HSearchSortHelperImpl;
import ca.uhn.fhir.jpa.dao.search.IHSearchSortHelper;
import ca.uhn.fhir.jpa.model.config.PartitionSettings;
import ca.uhn.fhir.jpa.model.config.SubscriptionSettings;
import ca.uhn.fhir.jpa.model.dialect.HapiFhirH2Dialect;
import ca.uhn.fhir.jpa.provider.DaoRegistryResourceSupportedSvc;
import ca.uhn.fhir.jpa.provider.IJpaSystemProvider;
import ca.uhn.fhir.jpa.provider.JpaCapabilityStatementProvider;
import ca.uhn.fhir.jpa.search.DatabaseBackedPagingProvider;
import ca.uhn.fhir.jpa.search.IStaleSearchDeletingSvc;
import ca.uhn.fhir.jpa.search.StaleSearchDeletingSvcImpl;
import ca.uhn.fhir.jpa.subscription.channel.config.SubscriptionChannelConfig;
import ca.uhn.fhir.jpa.util.ResourceCountCache;
import ca.uhn.fhir.context.support.IValidationSupport;
import ca.uhn.fhir.narrative2.NullNarrativeGenerator;
import ca.uhn.fhir.rest.api.EncodingEnum;
import ca.uhn.fhir.rest.api.IResourceSupportedSvc;
import ca.uhn.fhir.rest.server.IncomingRequestAddressStrategy;
import ca.uhn.fhir.rest.server.RestfulServer;
import ca.uhn.fhir.rest.server.provider.ResourceProviderFactory;
import ca.uhn.fhir.rest.server.util.ISearchParamRegistry;
import jakarta.persistence.EntityManagerFactory;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.commons.dbcp2.BasicDataSource;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.hibernate.dialect.Dialect;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * kgverify's local FHIR server: HAPI FHIR's JPA server for R4 in a plain Spring context (no
 * Spring Boot), H2 on disk under --home, the RestfulServer servlet at /fhir on embedded Jetty
 * bound to 127.0.0.1. What the official JPA starter (hapi-fhir-jpaserver-starter,
 * StarterJpaConfig and FhirServerConfigCommon) configures, less subscriptions, terminology
 * upload, validation, bulk jobs, MDM, CQL and the web tester: a store and its REST API.
 *
 * <p>Arguments: --home DIR --port N --ready-file FILE [--max-page N]. A line "error: ..." on
 * stdout and exit code 1 when it cannot start (the Python side reports that line).
 */
public final class LocalFhirServer {

  static Path home;
  static int maxPage = 500;

  private LocalFhirServer() {}

  public static void main(String[] args) throws Exception {
    int port = 8080;
    Path ready = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--home" -> home = Path.of(args[i + 1]).toAbsolutePath();
        case "--port" -> port = Integer.parseInt(args[i + 1]);
        case "--ready-file" -> ready = Path.of(args[i + 1]);
        case "--max-page" -> maxPage = Integer.parseInt(args[i + 1]);
        default -> fail("unknown argument " + args[i]);
      }
    }
    if (home == null || ready == null) {
      fail("--home and --ready-file are required");
    }
    Files.createDirectories(home);
    // No "powered by" banner, no narrative generation (it needs Thymeleaf and is not read).
    System.setProperty("hibernate.search.enabled", "false");
    AnnotationConfigApplicationContext context;
    try {
      context = new AnnotationConfigApplicationContext(Config.class);
    } catch (RuntimeException e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      e.printStackTrace(System.out);
      fail("the FHIR store did not open: " + root);
      return;
    }
    RestfulServer fhir = context.getBean(RestfulServer.class);

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler handler = new ServletContextHandler();
    handler.setContextPath("/");
    ServletHolder holder = new ServletHolder(fhir);
    holder.setInitOrder(1);
    handler.addServlet(holder, "/fhir/*");
    server.setHandler(handler);
    try {
      server.start();
    } catch (IOException e) {
      context.close();
      if (e instanceof BindException || e.getCause() instanceof BindException) {
        fail("port " + port + " on 127.0.0.1 is in use (setting fhir_port)");
      }
      fail("the HTTP server did not start: " + e);
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.stop();
                  } catch (Exception ignored) {
                    // stopping anyway
                  }
                  context.close(); // H2 closes its files cleanly
                }));
    Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
    Files.writeString(tmp, "url=http://127.0.0.1:" + port + "/fhir\n");
    Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    System.out.println("KGVERIFY_FHIR_READY http://127.0.0.1:" + port + "/fhir");
    server.join();
  }

  static void fail(String message) {
    System.out.println("error: " + message);
    System.out.flush();
    System.exit(1);
  }

  /** The beans the starter's StarterJpaConfig and FhirServerConfigCommon give JpaR4Config. */
  @Configuration
  @EnableTransactionManagement
  // Batch2 (HAPI's job framework): the store's own deferred work runs on it; the job
  // definitions (reindex, expunge, bulk) are what the starter's Application imports too.
  @Import({
    JpaR4Config.class,
    ThreadPoolFactoryConfig.class,
    JpaBatch2Config.class,
    Batch2JobsConfig.class,
    // in-memory channels: batch2's work queue runs on them (no subscription is enabled)
    SubscriptionChannelConfig.class
  })
  public static class Config {

    @Bean(destroyMethod = "close")
    public DataSource dataSource() {
      BasicDataSource ds = new BasicDataSource();
      ds.setDriverClassName("org.h2.Driver");
      // One file database under the server's home; closed by the shutdown hook, not on the
      // last connection (the pool keeps some open).
      ds.setUrl("jdbc:h2:file:" + home.resolve("h2").resolve("hapi") + ";DB_CLOSE_ON_EXIT=FALSE");
      ds.setUsername("sa");
      ds.setPassword("");
      ds.setMaxTotal(20);
      return ds;
    }

    @Bean
    public JpaStorageSettings storageSettings() {
      JpaStorageSettings settings = new JpaStorageSettings();
      // Ids as the client gives them (PUT Patient/123 as well as Patient/p-1a2b).
      settings.setResourceClientIdStrategy(JpaStorageSettings.ClientIdStrategyEnum.ANY);
      settings.setAllowMultipleDelete(true);
      settings.setExpungeEnabled(true);
      settings.setDeleteExpungeEnabled(true);
      return settings;
    }

    @Bean
    public PartitionSettings partitionSettings() {
      return new PartitionSettings();
    }

    @Bean
    public SubscriptionSettings subscriptionSettings() {
      return new SubscriptionSettings();
    }

    @Primary
    @Bean
    public LocalContainerEntityManagerFactoryBean entityManagerFactory(
        ConfigurableListableBeanFactory beans,
        ca.uhn.fhir.context.FhirContext fhirContext,
        JpaStorageSettings storageSettings,
        DataSource dataSource) {
      LocalContainerEntityManagerFactoryBean factory =
          HapiEntityManagerFactoryUtil.newEntityManagerFactory(beans, fhirContext, storageSettings);
      Map<String, Object> props = new HashMap<>();
      props.put("hibernate.dialect", HapiFhirH2Dialect.class.getName());
      props.put("hibernate.hbm2ddl.auto", "update");
      props.put("hibernate.format_sql", "false");
      props.put("hibernate.show_sql", "false");
      props.put("hibernate.jdbc.batch_size", "20");
      props.put("hibernate.cache.use_query_cache", "false");
      props.put("hibernate.cache.use_second_level_cache", "false");
      props.put("hibernate.cache.use_structured_entries", "false");
      props.put("hibernate.cache.use_minimal_puts", "false");
      props.put("hibernate.archive.scanner", "org.hibernate.boot.archive.scan.internal.DisabledScanner");
      props.put(
          "hibernate.physical_naming_strategy",
          "org.hibernate.boot.model.naming.CamelCaseToUnderscoresNamingStrategy");
      props.put("hibernate.search.enabled", "false");
      factory.setPersistenceUnitName("HAPI_PU");
      factory.setJpaPropertyMap(props);
      factory.setDataSource(dataSource);
      return factory;
    }

    @Bean
    @Primary
    public JpaTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
      JpaTransactionManager manager = new JpaTransactionManager();
      manager.setEntityManagerFactory(entityManagerFactory);
      return manager;
    }

    @Primary
    @Bean
    public HibernatePropertiesProvider hibernatePropertiesProvider() {
      return new HibernatePropertiesProvider() {
        private final Dialect dialect = new HapiFhirH2Dialect();

        @Override
        public Dialect getDialect() {
          return dialect;
        }
      };
    }

    @Bean
    public IFulltextSearchSvc fullTextSearchSvc() {
      return new FulltextSearchSvcImpl();
    }

    @Bean
    public IStaleSearchDeletingSvc staleSearchDeletingSvc() {
      return new StaleSearchDeletingSvcImpl();
    }

    @Bean
    public DatabaseBackedPagingProvider databaseBackedPagingProvider() {
      DatabaseBackedPagingProvider paging = new DatabaseBackedPagingProvider();
      paging.setDefaultPageSize(20);
      paging.setMaximumPageSize(maxPage);
      return paging;
    }

    @Bean
    public IResourceSupportedSvc resourceSupportedSvc(DaoRegistry daoRegistry) {
      return new DaoRegistryResourceSupportedSvc(daoRegistry);
    }

    @Bean(name = "myResourceCountsCache")
    public ResourceCountCache resourceCountsCache(IFhirSystemDao<?, ?> systemDao) {
      return ResourceCountCacheUtil.newResourceCountCache(systemDao);
    }

    @Bean
    public IHSearchSortHelper hSearchSortHelper(ISearchParamRegistry searchParamRegistry) {
      return new HSearchSortHelperImpl(searchParamRegistry);
    }

    @Bean
    public RestfulServer restfulServer(
        IFhirSystemDao<?, ?> systemDao,
        IJpaSystemProvider systemProvider,
        ResourceProviderFactory resourceProviders,
        JpaStorageSettings storageSettings,
        ISearchParamRegistry searchParamRegistry,
        IValidationSupport validationSupport,
        DatabaseBackedPagingProvider paging) {
      RestfulServer server = new RestfulServer(systemDao.getContext());
      systemDao.getContext().setNarrativeGenerator(new NullNarrativeGenerator());
      server.registerProviders(resourceProviders.createProviders());
      server.registerProvider(systemProvider);
      JpaCapabilityStatementProvider capabilities =
          new JpaCapabilityStatementProvider(
              server, systemDao, storageSettings, searchParamRegistry, validationSupport);
      capabilities.setImplementationDescription("kgverify local HAPI FHIR R4 server");
      server.setServerConformanceProvider(capabilities);
      server.setDefaultResponseEncoding(EncodingEnum.JSON);
      server.setPagingProvider(paging);
      server.setServerAddressStrategy(new IncomingRequestAddressStrategy());
      return server;
    }
  }
}
